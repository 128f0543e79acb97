package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recorder logs guard and after calls in order; it may refuse one path.
type recorder struct {
	mu     sync.Mutex
	log    []string
	refuse string
}

func (c *recorder) install(r *Root) {
	r.SetGuard(func(rel string) error {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.log = append(c.log, "guard "+rel)
		if rel == c.refuse {
			return errors.New("journal is full")
		}
		return nil
	})
	r.SetAfter(func(rel string) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.log = append(c.log, "after "+rel)
	})
}

func TestWriteFileCreatesParentsAndAsksTheGuardFirst(t *testing.T) {
	f := setup(t)
	var rec recorder
	rec.install(f.root)
	if err := f.root.WriteFile("notes/day/1.md", []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"guard notes", "guard notes/day", "guard notes/day/1.md", "guard notes/day/.1.md.nightshift-tmp",
		"after notes", "after notes/day", "after notes/day/1.md",
	}
	if diff := cmp.Diff(want, rec.log); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if got := mustRead(t, filepath.Join(f.dir, "notes", "day", "1.md")); got != "one\n" {
		t.Errorf("content = %q", got)
	}
	if diff := cmp.Diff([]string{"notes/day/1.md"}, f.root.Changed()); diff != "" {
		t.Errorf("Changed() lists directories (-want +got):\n%s", diff)
	}
}

func TestAGuardErrorBlocksTheChange(t *testing.T) {
	tests := []struct {
		name   string
		refuse string
		do     func(r *Root) error
		gone   []string // paths that must not exist afterwards
		kept   map[string]string
	}{
		{
			name:   "a refused new file is not written and its directories are not made",
			refuse: "new/b.md",
			do:     func(r *Root) error { return r.WriteFile("new/b.md", []byte("x"), 0o644) },
			gone:   []string{"new"},
		},
		{
			name:   "a refused directory stops the write before anything is made",
			refuse: "new",
			do:     func(r *Root) error { return r.WriteFile("new/b.md", []byte("x"), 0o644) },
			gone:   []string{"new"},
		},
		{
			name:   "a refused overwrite leaves the old content",
			refuse: "docs/a.md",
			do:     func(r *Root) error { return r.WriteFile("docs/a.md", []byte("x"), 0o644) },
			kept:   map[string]string{"docs/a.md": "alpha\n"},
		},
		{
			name:   "a refused edit leaves the old content",
			refuse: "docs/a.md",
			do: func(r *Root) error {
				_, err := r.Edit("docs/a.md", func([]byte) ([]byte, error) { return []byte("x"), nil })
				return err
			},
			kept: map[string]string{"docs/a.md": "alpha\n"},
		},
		{
			name:   "a refused removal leaves the file",
			refuse: "docs/a.md",
			do:     func(r *Root) error { return r.Remove("docs/a.md") },
			kept:   map[string]string{"docs/a.md": "alpha\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t)
			rec := recorder{refuse: tt.refuse}
			rec.install(f.root)
			err := tt.do(f.root)
			var ge *GuardError
			if !errors.As(err, &ge) || ge.Path != tt.refuse {
				t.Fatalf("err = %v, want a *GuardError for %s", err, tt.refuse)
			}
			if !strings.Contains(err.Error(), "journal is full") {
				t.Errorf("message %q drops the guard's reason", err)
			}
			for _, p := range tt.gone {
				if _, err := os.Lstat(filepath.Join(f.dir, p)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s exists: %v", p, err)
				}
			}
			for p, want := range tt.kept {
				if got := mustRead(t, filepath.Join(f.dir, p)); got != want {
					t.Errorf("%s = %q, want %q", p, got, want)
				}
			}
			for _, l := range rec.log {
				if strings.HasPrefix(l, "after ") {
					t.Errorf("after was called for a refused change: %v", rec.log)
				}
			}
			if got := f.root.Changed(); len(got) != 0 {
				t.Errorf("Changed() = %v, want none", got)
			}
		})
	}
}

func TestAnEditThatChangesNothingWritesNothing(t *testing.T) {
	f := setup(t)
	var rec recorder
	rec.install(f.root)
	changed, err := f.root.Edit("docs/a.md", func(b []byte) ([]byte, error) { return b, nil })
	if err != nil || changed {
		t.Fatalf("Edit = %v, %v; want false, nil", changed, err)
	}
	if len(rec.log) != 0 || len(f.root.Changed()) != 0 {
		t.Errorf("guard log %v, Changed %v; want both empty", rec.log, f.root.Changed())
	}
}

func TestModes(t *testing.T) {
	tests := []struct {
		name string
		mode fs.FileMode
		do   func(r *Root) error
	}{
		{"an overwrite keeps an executable file executable", 0o755, func(r *Root) error {
			return r.WriteFile("run.sh", []byte("echo two\n"), 0o644)
		}},
		{"an overwrite keeps a private file private", 0o600, func(r *Root) error {
			return r.WriteFile("run.sh", []byte("echo two\n"), 0o644)
		}},
		{"an edit keeps the mode", 0o750, func(r *Root) error {
			_, err := r.Edit("run.sh", func([]byte) ([]byte, error) { return []byte("echo two\n"), nil })
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t)
			p := filepath.Join(f.dir, "run.sh")
			mustWrite(t, p, "echo one\n")
			if err := os.Chmod(p, tt.mode); err != nil {
				t.Fatal(err)
			}
			if err := tt.do(f.root); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != tt.mode {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), tt.mode)
			}
			if got := mustRead(t, p); got != "echo two\n" {
				t.Errorf("content = %q", got)
			}
		})
	}
}

func TestAReadOnlyFileIsNotReplaced(t *testing.T) {
	if os.Geteuid() == 0 {
		// root opens a read-only file for writing anyway, so the
		// permission check under test cannot fail.
		t.Skip("running as root, which bypasses file permissions")
	}
	f := setup(t)
	p := filepath.Join(f.dir, "docs", "a.md")
	if err := os.Chmod(p, 0o444); err != nil {
		t.Fatal(err)
	}
	err := f.root.WriteFile("docs/a.md", []byte("x"), 0o644)
	if !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("err = %v, want permission denied", err)
	}
	if got := mustRead(t, p); got != "alpha\n" {
		t.Errorf("content = %q", got)
	}
}

func TestWritingADirectoryFails(t *testing.T) {
	f := setup(t)
	for _, p := range []string{"docs", "."} {
		if err := f.root.WriteFile(p, []byte("x"), 0o644); err == nil {
			t.Errorf("WriteFile(%q) succeeded", p)
		}
	}
}

func TestChangedListsEveryFileOnceSorted(t *testing.T) {
	f := setup(t)
	for _, p := range []string{"z.md", "docs/a.md", "b/c.md", "z.md"} {
		if err := f.root.WriteFile(p, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.root.Remove("good-link"); err != nil {
		t.Fatal(err)
	}
	want := []string{"b/c.md", "docs/a.md", "good-link", "z.md"}
	if diff := cmp.Diff(want, f.root.Changed()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestConcurrentEditsOfOneFileAreNotLost(t *testing.T) {
	f := setup(t)
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := f.root.Edit("docs/a.md", func(b []byte) ([]byte, error) {
				return fmt.Appendf(b, "line %d\n", i), nil
			})
			if err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if _, err := f.root.ReadFile("docs/a.md"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got := mustRead(t, filepath.Join(f.dir, "docs", "a.md"))
	if lines := strings.Count(got, "\n"); lines != n+1 {
		t.Errorf("%d lines after %d concurrent appends, want %d", lines, n, n+1)
	}
	entries, _ := os.ReadDir(filepath.Join(f.dir, "docs"))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), "nightshift-tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// Regression: writes were staged in a hidden file beside their target, so
// a process killed between the write and the rename left an unexplained
// file in the workspace that no rollback knew about. The staged file is
// still beside its target (a rename across file systems is not atomic),
// but the guard hears of it before it exists, so the journal removes what
// a kill leaves; a completed write leaves nothing.
func TestAStagedWriteIsAnnouncedToTheGuard(t *testing.T) {
	dir := t.TempDir()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var guarded []string
	r.SetGuard(func(rel string) error {
		if _, err := os.Lstat(filepath.Join(dir, rel)); err == nil && strings.Contains(rel, "nightshift-tmp") {
			t.Errorf("the guard heard of %s after it was created", rel)
		}
		guarded = append(guarded, rel)
		return nil
	})
	if err := r.WriteFile("docs/a.md", []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if len(guarded) != 3 || guarded[0] != "docs" || guarded[1] != "docs/a.md" ||
		guarded[2] != "docs/.a.md.nightshift-tmp" {
		t.Errorf("guarded %q, want docs, docs/a.md and its staged file", guarded)
	}
	ents, err := os.ReadDir(filepath.Join(dir, "docs"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != "a.md" {
		t.Errorf("docs holds %v, want a.md alone", ents)
	}
	if got := r.Changed(); len(got) != 1 || got[0] != "docs/a.md" {
		t.Errorf("Changed() = %v, want docs/a.md alone", got)
	}
	if _, err := os.Stat(filepath.Join(dir, ".nightshift")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a write created .nightshift/ in the workspace (err %v)", err)
	}
}

func TestAddChangedJoinsWhatCommandsChanged(t *testing.T) {
	r, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.WriteFile("out.md", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.AddChanged([]string{"cmd_out.md", "test_core.txt", "out.md"})
	want := []string{"cmd_out.md", "out.md", "test_core.txt"}
	if got := r.Changed(); !slices.Equal(got, want) {
		t.Errorf("Changed() = %v, want %v", got, want)
	}
}
