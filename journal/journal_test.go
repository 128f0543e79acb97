package journal

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/nightshift-dev/nightshift/statedir"
)

func TestRollbackRestoresExactly(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, root string, j *Journal)
		want Report
	}{
		{
			name: "an overwritten file gets its bytes and mode back",
			run: func(t *testing.T, root string, j *Journal) {
				change(t, j, "a.txt", func() error { return os.WriteFile(filepath.Join(root, "a.txt"), []byte("changed"), 0o600) })
				change(t, j, "a.txt", func() error { return os.Chmod(filepath.Join(root, "a.txt"), 0o600) })
			},
			want: Report{Restored: []string{"a.txt"}},
		},
		{
			name: "a file whose mode alone changed gets its mode back",
			run: func(t *testing.T, root string, j *Journal) {
				change(t, j, "bin/run.sh", func() error { return os.Chmod(filepath.Join(root, "bin/run.sh"), 0o644) })
			},
			want: Report{Restored: []string{"bin/run.sh"}},
		},
		{
			name: "a created file is removed",
			run: func(t *testing.T, root string, j *Journal) {
				change(t, j, "new.txt", func() error { return os.WriteFile(filepath.Join(root, "new.txt"), []byte("new"), 0o644) })
			},
			want: Report{Removed: []string{"new.txt"}},
		},
		{
			name: "a file created in new folders is removed with the folders",
			run: func(t *testing.T, root string, j *Journal) {
				change(t, j, "x/y/z.txt", func() error {
					if err := os.MkdirAll(filepath.Join(root, "x/y"), 0o755); err != nil {
						return err
					}
					return os.WriteFile(filepath.Join(root, "x/y/z.txt"), []byte("z"), 0o644)
				})
			},
			want: Report{Removed: []string{"x", "x/y", "x/y/z.txt"}},
		},
		{
			name: "a deleted file is recreated with its mode",
			run: func(t *testing.T, root string, j *Journal) {
				change(t, j, "docs/readme.md", func() error { return os.Remove(filepath.Join(root, "docs/readme.md")) })
			},
			want: Report{Recreated: []string{"docs/readme.md"}},
		},
		{
			name: "a deleted folder tree is recreated with its modes",
			run: func(t *testing.T, root string, j *Journal) {
				change(t, j, "docs", func() error { return os.RemoveAll(filepath.Join(root, "docs")) })
			},
			want: Report{Recreated: []string{"docs", "docs/deep", "docs/deep/note.txt", "docs/readme.md"}},
		},
		{
			name: "a created empty folder is removed",
			run: func(t *testing.T, root string, j *Journal) {
				change(t, j, "empty", func() error { return os.Mkdir(filepath.Join(root, "empty"), 0o755) })
			},
			want: Report{Removed: []string{"empty"}},
		},
		{
			name: "a folder whose mode changed gets it back",
			run: func(t *testing.T, root string, j *Journal) {
				change(t, j, "docs", func() error { return os.Chmod(filepath.Join(root, "docs"), 0o700) })
			},
			want: Report{Restored: []string{"docs"}},
		},
		{
			name: "a retargeted symlink points where it did",
			run: func(t *testing.T, root string, j *Journal) {
				change(t, j, "link", func() error {
					if err := os.Remove(filepath.Join(root, "link")); err != nil {
						return err
					}
					return os.Symlink("bin", filepath.Join(root, "link"))
				})
			},
			want: Report{Restored: []string{"link"}},
		},
		{
			name: "a file replaced by a folder is put back",
			run: func(t *testing.T, root string, j *Journal) {
				change(t, j, "a.txt", func() error {
					if err := os.Remove(filepath.Join(root, "a.txt")); err != nil {
						return err
					}
					return os.Mkdir(filepath.Join(root, "a.txt"), 0o755)
				})
				change(t, j, "a.txt/inner", func() error {
					return os.WriteFile(filepath.Join(root, "a.txt/inner"), nil, 0o644)
				})
			},
			want: Report{Removed: []string{"a.txt/inner"}, Recreated: []string{"a.txt"}},
		},
		{
			name: "a file written twice is restored to what it was before the first write",
			run: func(t *testing.T, root string, j *Journal) {
				for _, s := range []string{"one", "two"} {
					change(t, j, "a.txt", func() error { return os.WriteFile(filepath.Join(root, "a.txt"), []byte(s), 0o644) })
				}
			},
			want: Report{Restored: []string{"a.txt"}},
		},
		{
			name: "a change made without an after record still counts as the run's",
			run: func(t *testing.T, root string, j *Journal) {
				if err := j.Before("a.txt"); err != nil {
					t.Fatal(err)
				}
				write(t, root, "a.txt", "killed before After", 0o644)
			},
			want: Report{Restored: []string{"a.txt"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, stateDir := setup(t)
			want := tree(t, root)
			j := begin(t, root, stateDir)
			tt.run(t, root, j)
			rep, err := j.Rollback()
			if err != nil {
				t.Fatalf("Rollback: %v", err)
			}
			if diff := cmp.Diff(want, tree(t, root)); diff != "" {
				t.Errorf("workspace after rollback (-before the run +now):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, rep, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("report (-want +got):\n%s", diff)
			}
			assertNoJournals(t, stateDir)
		})
	}
}

func assertNoJournals(t *testing.T, stateDir string) {
	t.Helper()
	entries, err := os.ReadDir(journalsDir(stateDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("journal folder still holds %d entries; want none", len(entries))
	}
}

func TestRollbackLeavesOutsideChangesAlone(t *testing.T) {
	root, stateDir := setup(t)
	j := begin(t, root, stateDir)
	change(t, j, "a.txt", func() error { return os.WriteFile(filepath.Join(root, "a.txt"), []byte("the run's"), 0o644) })
	change(t, j, "new/file.txt", func() error {
		if err := os.Mkdir(filepath.Join(root, "new"), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, "new/file.txt"), []byte("x"), 0o644)
	})
	change(t, j, "docs/readme.md", func() error { return os.WriteFile(filepath.Join(root, "docs/readme.md"), []byte("run"), 0o600) })
	// Something else (a person, an editor) writes during the run.
	write(t, root, "a.txt", "a person's edit", 0o644)
	write(t, root, "new/theirs.txt", "theirs", 0o644)

	rep, err := j.Rollback()
	if err != nil {
		t.Fatal(err)
	}
	got := tree(t, root)
	for rel, want := range map[string]string{
		"a.txt":          `file -rw-r--r-- "a person's edit"`,
		"new/theirs.txt": `file -rw-r--r-- "theirs"`,
		"docs/readme.md": `file -rw------- "# readme\n"`,
	} {
		if got[rel] != want {
			t.Errorf("%s = %s, want %s", rel, got[rel], want)
		}
	}
	if _, ok := got["new/file.txt"]; ok {
		t.Error("new/file.txt, made by the run, is still there")
	}
	var conflicts []string
	for _, c := range rep.Conflicts {
		conflicts = append(conflicts, c.Path)
	}
	if diff := cmp.Diff([]string{"a.txt", "new"}, conflicts); diff != "" {
		t.Errorf("conflicts (-want +got):\n%s", diff)
	}
}

func TestSnapshotRollsBackACommand(t *testing.T) {
	root, stateDir := setup(t)
	want := tree(t, root)
	j := begin(t, root, stateDir)
	change(t, j, "a.txt", func() error { return os.WriteFile(filepath.Join(root, "a.txt"), []byte("tool"), 0o644) })
	if err := j.Snapshot(t.Context()); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", "echo cmd > a.txt && rm -r docs && mkdir -p out/sub && echo y > out/sub/new && chmod 600 bin/run.sh && ln -sf bin link")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("command: %v\n%s", err, out)
	}
	if err := j.AfterSnapshot(); err != nil {
		t.Fatal(err)
	}
	rep, err := j.Rollback()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, tree(t, root)); diff != "" {
		t.Errorf("workspace after rollback (-before the run +now):\n%s", diff)
	}
	wantRep := Report{
		Restored:  []string{"a.txt", "bin/run.sh", "link"},
		Removed:   []string{"out", "out/sub", "out/sub/new"},
		Recreated: []string{"docs", "docs/deep", "docs/deep/note.txt", "docs/readme.md"},
	}
	if diff := cmp.Diff(wantRep, rep, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}

func TestCommitKeepsTheChanges(t *testing.T) {
	root, stateDir := setup(t)
	j := begin(t, root, stateDir)
	change(t, j, "a.txt", func() error { return os.WriteFile(filepath.Join(root, "a.txt"), []byte("kept"), 0o644) })
	if err := j.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, root)["a.txt"]; got != `file -rw-r--r-- "kept"` {
		t.Errorf("a.txt = %s, want the run's content", got)
	}
	assertNoJournals(t, stateDir)
	if _, err := j.Rollback(); !errors.Is(err, ErrClosed) {
		t.Errorf("Rollback after Commit: err = %v, want ErrClosed", err)
	}
	if err := j.Before("a.txt"); !errors.Is(err, ErrClosed) {
		t.Errorf("Before after Commit: err = %v, want ErrClosed", err)
	}
}

func TestBeforeRefusesPathsOutside(t *testing.T) {
	root, stateDir := setup(t)
	j := begin(t, root, stateDir)
	for _, rel := range []string{"../x", "/etc/passwd"} {
		if err := j.Before(rel); err == nil {
			t.Errorf("Before(%q) = nil, want an error", rel)
		}
	}
}

// Issue 25: a journal is trusted for lying where no run can write. A
// state folder inside the workspace is no such place: Begin refuses it.
func TestAStateFolderInsideTheWorkspaceIsRefused(t *testing.T) {
	root, _ := setup(t)
	_, err := Begin(root, filepath.Join(root, ".state"), "run-1")
	if !errors.Is(err, statedir.ErrUnusable) {
		t.Fatalf("Begin with the state folder inside the workspace: err = %v, want statedir.ErrUnusable", err)
	}
}

func TestBeforeIsOnDiskWhenItReturns(t *testing.T) {
	root, stateDir := setup(t)
	j := begin(t, root, stateDir)
	if err := j.Before("docs/readme.md"); err != nil {
		t.Fatal(err)
	}
	// Read the journal as a fresh process would, from disk alone.
	s := load(j.Dir(), false)
	if len(s.damage) > 0 {
		t.Fatalf("damage: %v", s.damage)
	}
	st, ok := s.m.prior["docs/readme.md"]
	if !ok {
		t.Fatal("the journal has no record of docs/readme.md")
	}
	r, err := openBlob(s.blobs, st)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	blob, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(blob) != "# readme\n" {
		t.Errorf("saved content = %q, want the prior content", blob)
	}
}

func TestDamagedSavedContentIsAnErrorNotARestore(t *testing.T) {
	root, stateDir := setup(t)
	j := begin(t, root, stateDir)
	change(t, j, "a.txt", func() error { return os.WriteFile(filepath.Join(root, "a.txt"), []byte("run"), 0o644) })
	st := j.m.prior["a.txt"]
	pack := filepath.Join(j.Dir(), stepsName, st.Pack)
	if err := os.WriteFile(pack, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Rollback(); err == nil {
		t.Fatal("Rollback with damaged saved content succeeded")
	}
	if got := tree(t, root)["a.txt"]; got != `file -rw-r--r-- "run"` {
		t.Errorf("a.txt = %s; a damaged restore must leave the file as it is", got)
	}
	if _, err := os.Stat(j.Dir()); err != nil {
		t.Errorf("the journal is gone after a failed rollback: %v", err)
	}
}

func TestSameContentIsSavedOnce(t *testing.T) {
	root, stateDir := setup(t)
	for _, n := range []string{"c1", "c2", "c3"} {
		write(t, root, n, "same content\n", 0o644)
	}
	want := tree(t, root)
	j := begin(t, root, stateDir)
	if err := j.Snapshot(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"c1", "c2", "c3"} {
		write(t, root, n, "changed", 0o644)
	}
	if err := j.AfterSnapshot(); err != nil {
		t.Fatal(err)
	}
	packs, err := filepath.Glob(filepath.Join(j.Dir(), stepsName, "*.pack"))
	if err != nil {
		t.Fatal(err)
	}
	if len(packs) != 1 {
		t.Fatalf("%d packs after one snapshot, want 1", len(packs))
	}
	info, err := os.Stat(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	// alpha\n, the script, # readme\n, deep\n and one "same content\n".
	if wantSize := int64(6 + 19 + 9 + 5 + 13); info.Size() != wantSize {
		t.Errorf("pack holds %d bytes, want %d: each content once", info.Size(), wantSize)
	}
	if _, err := j.Rollback(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, tree(t, root)); diff != "" {
		t.Errorf("workspace after rollback (-before +now):\n%s", diff)
	}
}
