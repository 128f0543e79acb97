package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/nightshift-dev/nightshift/internal/crashpoint"
)

// The tests in this file are the regression tests of issue 10, "Nothing a
// run does can lose the state before it", one per way it was broken.

// sh runs a shell command in the workspace, as run_command would.
func sh(t *testing.T, root, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// command runs script between Snapshot and AfterSnapshot, as the agent
// runs a danger-class tool.
func command(t *testing.T, j *Journal, root, script string) {
	t.Helper()
	if err := j.Snapshot(t.Context()); err != nil {
		t.Fatal(err)
	}
	sh(t, root, script)
	if err := j.AfterSnapshot(); err != nil {
		t.Fatal(err)
	}
}

// writeTool changes a file the way write_file does: Before, write, After.
func writeTool(t *testing.T, j *Journal, root, rel, content string) {
	t.Helper()
	change(t, j, rel, func() error {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644)
	})
}

func mustRecover(t *testing.T, root, stateDir string) Report {
	t.Helper()
	rep, err := Recover(root, stateDir)
	if err != nil {
		t.Fatalf("Recover: %v\n%s", err, rep)
	}
	return rep
}

func assertSame(t *testing.T, want map[string]string, root string) {
	t.Helper()
	if diff := cmp.Diff(want, tree(t, root)); diff != "" {
		t.Errorf("workspace (-before the run +now):\n%s", diff)
	}
}

// Issue 10, case 1: `git clean -fdxq` or `rm -rf .nightshift` removed the
// journal, which lived in the workspace. It lives in the state folder now,
// out of the command's reach, and rollback puts back everything the
// command removed, the old .nightshift/ folder included.
func TestACommandThatDeletesTheJournalFolderCannotLoseTheJournal(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root, stateDir := setup(t)
	sh(t, root, "git init -q . && git add a.txt bin && git -c user.email=t@t -c user.name=t commit -qm init")
	mkdir(t, root, ".nightshift", 0o755)
	write(t, root, ".nightshift/audit.jsonl", "an old version's audit log\n", 0o600)
	want := tree(t, root)

	j := begin(t, root, stateDir)
	writeTool(t, j, root, "a.txt", "edited by the run\n")
	command(t, j, root, "git clean -fdxq && rm -rf .nightshift")
	if _, err := os.Stat(filepath.Join(root, "docs")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("git clean left docs/ (err %v); the test means nothing", err)
	}
	if _, err := os.Stat(j.Dir()); err != nil {
		t.Fatalf("the journal is gone: %v", err)
	}
	rep, err := j.Rollback()
	if err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	assertSame(t, want, root)
	if len(rep.Conflicts) > 0 {
		t.Errorf("conflicts: %v", rep.Conflicts)
	}
}

// Issue 10, case 2: killed while a command ran, recovery compared paths
// with what earlier steps had left ("after" records), took the command's
// changes for somebody else's, and left them: a.txt stayed "v3", a folder
// the command renamed lost its files, and a folder whose parent it
// replaced failed with "recreate sub/deeper: mkdirat". While a command
// runs, the snapshot is the truth: every path goes back.
func TestAKillDuringACommandRestoresFromTheSnapshot(t *testing.T) {
	tests := []struct {
		name   string
		before func(t *testing.T, j *Journal, root string)
		script string
	}{
		{
			name:   "a file the run wrote and the command overwrote",
			before: func(t *testing.T, j *Journal, root string) { writeTool(t, j, root, "a.txt", "v2\n") },
			script: "echo v3 > a.txt",
		},
		{
			name:   "a folder the command renamed",
			script: "mv docs renamed && echo more > renamed/more.txt",
		},
		{
			name: "a folder with an after record that the command replaced",
			before: func(t *testing.T, j *Journal, root string) {
				writeTool(t, j, root, "docs/deep/new.txt", "new\n")
				writeTool(t, j, root, "docs/readme.md", "edited\n")
			},
			script: "rm -rf docs && mkdir docs && chmod 700 docs && echo x > docs/other",
		},
		{
			name: "a file the run deleted and the command recreated",
			before: func(t *testing.T, j *Journal, root string) {
				change(t, j, "bin/run.sh", func() error { return os.Remove(filepath.Join(root, "bin/run.sh")) })
			},
			script: "echo different > bin/run.sh && chmod 600 bin/run.sh",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, stateDir := setup(t)
			want := tree(t, root)
			j := begin(t, root, stateDir)
			if tt.before != nil {
				tt.before(t, j, root)
			}
			if err := j.Snapshot(t.Context()); err != nil {
				t.Fatal(err)
			}
			sh(t, root, tt.script)
			die(j) // killed before the command returned

			rep := mustRecover(t, root, stateDir)
			assertSame(t, want, root)
			if len(rep.Conflicts)+len(rep.Failed)+len(rep.Damaged) > 0 {
				t.Errorf("report: %s", rep)
			}
			if pending, _ := Pending(stateDir); len(pending) > 0 {
				t.Errorf("still pending: %v", pending)
			}
		})
	}
}

// crash makes the k-th crash point from now on panic, as if the process
// were killed there, and reports whether fn was stopped.
func crash(t *testing.T, k int, fn func()) (stopped bool) {
	t.Helper()
	type killed struct{ at string }
	n := 0
	crashpoint.Set(func(name string) {
		if n++; n == k {
			panic(killed{name})
		}
	})
	defer crashpoint.Set(nil)
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(killed); !ok {
				panic(r)
			}
			stopped = true
		}
	}()
	fn()
	return false
}

// everything makes every kind of change a run can make: content, modes,
// a deleted tree of private files, new folders, a retargeted link, a file
// replaced by a folder, and a command that renames folders and replaces
// one with a symlink that leads out.
func everything(t *testing.T, j *Journal, root string) {
	t.Helper()
	writeTool(t, j, root, "a.txt", "changed\n")
	writeTool(t, j, root, "x/y/z.txt", "new\n")
	change(t, j, "docs", func() error { return os.RemoveAll(filepath.Join(root, "docs")) })
	command(t, j, root, "chmod 600 bin/run.sh && ln -sfn bin link && mv bin bin2 && mkdir -p bin/sub && chmod 555 bin/sub"+
		" && rm a.txt && mkdir a.txt && echo in > a.txt/inner")
	if err := j.Snapshot(t.Context()); err != nil {
		t.Fatal(err)
	}
	sh(t, root, "rm -rf x && ln -s "+t.TempDir()+" x")
}

// Issue 10, case 4: killed during the rollback itself, the workspace kept
// a ".nightshift-restore-<pid>" file with a private file's content, and
// folders recreated at 0700; recover took both for conflicts. Now a
// rollback writes nothing in the workspace but the paths it restores, and
// recover finishes it from any point, modes included.
func TestAKillDuringRollbackIsFinishedByRecover(t *testing.T) {
	points := 0
	for k := 1; ; k++ {
		root, stateDir := setup(t)
		want := tree(t, root)
		j := begin(t, root, stateDir)
		everything(t, j, root)
		stopped := crash(t, k, func() {
			if _, err := j.Rollback(); err != nil {
				t.Fatalf("Rollback: %v", err)
			}
		})
		if !stopped {
			break
		}
		points++
		die(j)
		rep := mustRecover(t, root, stateDir)
		if diff := cmp.Diff(want, tree(t, root)); diff != "" {
			t.Fatalf("killed at rollback point %d: workspace after recover (-before +now):\n%s", k, diff)
		}
		if len(rep.Conflicts) > 0 {
			t.Fatalf("killed at rollback point %d: recover saw conflicts: %v", k, rep.Conflicts)
		}
		// A second recover has nothing left to do.
		if rep := mustRecover(t, root, stateDir); !rep.Empty() || len(rep.Runs) > 0 {
			t.Fatalf("killed at rollback point %d: a second recover did %s", k, rep)
		}
	}
	if points < 10 {
		t.Fatalf("only %d crash points during a rollback; the test covers too little", points)
	}
	t.Logf("killed the rollback at each of its %d points; recover finished every one", points)
}

// Recovery is crash-safe too: killed at any point, the next recover ends
// where one uninterrupted recover would.
func TestAKillDuringRecoverIsFinishedByTheNextOne(t *testing.T) {
	points := 0
	for k := 1; ; k++ {
		root, stateDir := setup(t)
		want := tree(t, root)
		j := begin(t, root, stateDir)
		everything(t, j, root)
		die(j)
		stopped := crash(t, k, func() { mustRecover(t, root, stateDir) })
		if !stopped {
			break
		}
		points++
		mustRecover(t, root, stateDir)
		if diff := cmp.Diff(want, tree(t, root)); diff != "" {
			t.Fatalf("killed at recover point %d (-before +now):\n%s", k, diff)
		}
		if pending, _ := Pending(stateDir); len(pending) > 0 {
			t.Fatalf("killed at recover point %d: still pending %v", k, pending)
		}
	}
	if points < 10 {
		t.Fatalf("only %d crash points during a recover", points)
	}
	t.Logf("killed recover at each of its %d points; the next one finished every time", points)
}

// Killed at any point of a run (a write, a snapshot, a command's end),
// recover restores the state before the run.
func TestAKillAtAnyPointOfARunIsRecovered(t *testing.T) {
	points := 0
	for k := 1; ; k++ {
		root, stateDir := setup(t)
		want := tree(t, root)
		var j *Journal
		stopped := crash(t, k, func() {
			j = begin(t, root, stateDir)
			everything(t, j, root)
		})
		if !stopped {
			j.Rollback()
			break
		}
		points++
		if j != nil {
			die(j)
		} else {
			// Killed inside Begin: its folder's lock died with it.
			crashpoint.Set(nil)
		}
		mustRecover(t, root, stateDir)
		if diff := cmp.Diff(want, tree(t, root)); diff != "" {
			t.Fatalf("killed at run point %d (-before +now):\n%s", k, diff)
		}
	}
	t.Logf("killed the run at each of its %d points; recover restored every one", points)
}

// Issue 10, case 5: a damaged journal (its log emptied, deleted, or cut
// short) was reported as "0 restored", and deleted with the intact saved
// contents. Now recover restores what the journal still says, names the
// damage, keeps the journal (ErrDamaged), and only Discard drops it.
func TestADamagedJournalFailsSafe(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, dir string)
		// restored: the run's write to a.txt is in the first step, so
		// damage after it leaves a.txt restorable.
		restored bool
	}{
		// Issue 25: a journal that names no workspace is not applied at
		// all; nothing says nightshift wrote it for this one.
		{"its begin record emptied", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, beginName), 0) }, false},
		{"a step emptied", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, stepsName, stepFile(2)), 0) }, true},
		{"a step deleted", func(t *testing.T, dir string) { rm(t, filepath.Join(dir, stepsName, stepFile(2))) }, true},
		{"a step cut short", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, stepsName, stepFile(2)), 30) }, true},
		{"every step deleted", func(t *testing.T, dir string) {
			for n := 1; n <= 3; n++ {
				rm(t, filepath.Join(dir, stepsName, stepFile(n)))
			}
		}, false},
		{"the folder of steps deleted", func(t *testing.T, dir string) { rmAll(t, filepath.Join(dir, stepsName)) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, stateDir := setup(t)
			want := tree(t, root)
			j := begin(t, root, stateDir)
			writeTool(t, j, root, "a.txt", "the run's\n")
			writeTool(t, j, root, "docs/readme.md", "the run's\n")
			writeTool(t, j, root, "bin/run.sh", "the run's\n")
			die(j)
			tt.damage(t, j.Dir())

			rep, err := Recover(root, stateDir)
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("Recover: err = %v, want ErrDamaged\n%s", err, rep)
			}
			if len(rep.Damaged) == 0 {
				t.Errorf("the report names no damage:\n%s", rep)
			}
			if got := tree(t, root)["a.txt"] == want["a.txt"]; got != tt.restored {
				t.Errorf("a.txt restored = %v, want %v", got, tt.restored)
			}
			if _, err := os.Stat(j.Dir()); err != nil {
				t.Fatalf("the damaged journal was deleted: %v", err)
			}
			if _, err := Begin(root, stateDir, "next"); !errors.Is(err, ErrNeedsRecovery) {
				t.Errorf("Begin beside a damaged journal: err = %v, want ErrNeedsRecovery", err)
			}
			// Again: the same answer, nothing lost.
			if _, err := Recover(root, stateDir); !errors.Is(err, ErrDamaged) {
				t.Errorf("second Recover: err = %v, want ErrDamaged", err)
			}
			runs, err := Discard(root, stateDir)
			if err != nil || !slices.Equal(runs, []string{"run-1"}) {
				t.Fatalf("Discard = %v, %v", runs, err)
			}
			if _, err := os.Stat(j.Dir()); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Discard left the journal: %v", err)
			}
		})
	}
}

// Saved content that does not match its hash is never written back: the
// path stays as it is, the rest is restored, and the journal is kept.
func TestADamagedSavedContentIsReportedAndKept(t *testing.T) {
	root, stateDir := setup(t)
	want := tree(t, root)
	j := begin(t, root, stateDir)
	writeTool(t, j, root, "a.txt", "the run's\n")
	writeTool(t, j, root, "docs/readme.md", "the run's\n")
	st := j.m.prior["a.txt"]
	die(j)
	if err := os.WriteFile(filepath.Join(j.Dir(), stepsName, st.Pack), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := Recover(root, stateDir)
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("err = %v, want ErrDamaged", err)
	}
	if len(rep.Failed) != 1 || rep.Failed[0].Path != "a.txt" {
		t.Errorf("failed = %v, want a.txt", rep.Failed)
	}
	got := tree(t, root)
	if got["a.txt"] != `file -rw-r--r-- "the run's\n"` || got["docs/readme.md"] != want["docs/readme.md"] {
		t.Errorf("a.txt = %s (want it left), docs/readme.md = %s (want it restored)", got["a.txt"], got["docs/readme.md"])
	}
}

// An earlier version's journal with a damaged log fails safe the same way.
func TestADamagedLegacyJournalFailsSafe(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, dir string)
	}{
		{"its log emptied", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, logName), 0) }},
		{"its log deleted", func(t *testing.T, dir string) { rm(t, filepath.Join(dir, logName)) }},
		{"its log cut short mid-record", func(t *testing.T, dir string) {
			p := filepath.Join(dir, logName)
			b, _ := os.ReadFile(p)
			truncate(t, p, int64(len(b)-10))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, _ := setup(t)
			dir := legacyJournal(t, root)
			tt.damage(t, dir)
			rep, err := RecoverLegacy(t.Context(), root, t.TempDir())
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("RecoverLegacy: err = %v, want ErrDamaged\n%s", err, rep)
			}
			if len(rep.Damaged) == 0 {
				t.Errorf("no damage named:\n%s", rep)
			}
			packs, _ := filepath.Glob(filepath.Join(dir, blobsName, "pack-*"))
			if len(packs) == 0 {
				t.Errorf("the saved contents are gone")
			}
		})
	}
}

// legacyJournal writes, in root/.nightshift/journal/old-run/, the journal
// an earlier version left when it died after overwriting a.txt and
// creating made.txt, and makes those changes.
func legacyJournal(t *testing.T, root string) string {
	t.Helper()
	dir := filepath.Join(root, ".nightshift", "journal", "old-run")
	if err := os.MkdirAll(filepath.Join(dir, blobsName), 0o700); err != nil {
		t.Fatal(err)
	}
	prior := "alpha\n"
	if err := os.WriteFile(filepath.Join(dir, blobsName, "pack-123"), []byte(prior), 0o600); err != nil {
		t.Fatal(err)
	}
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	log := fmt.Sprintf(`{"op":"begin","run":"old-run","root":%q,"time":"2026-01-01T00:00:00Z"}
{"op":"before","path":"a.txt","state":{"kind":"file","mode":420,"hash":%q,"size":6,"pack":"pack-123"}}
{"op":"after","path":"a.txt","state":{"kind":"file","mode":420,"hash":%q,"size":3}}
{"op":"before","path":"made.txt","state":{"kind":"absent"}}
`, root, sum(prior), sum("old"))
	if err := os.WriteFile(filepath.Join(dir, logName), []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	write(t, root, "a.txt", "old", 0o644)
	write(t, root, "made.txt", "made by the old run\n", 0o644)
	return dir
}

// Existing users: a run that died under an earlier version left its
// journal in the workspace's .nightshift/journal/. Issue 25: that is where
// a run's command (or a cloned repository) can put one, so it is never
// applied by itself: Begin does not refuse beside it, Recover leaves it,
// Legacy lists what it would change, and RecoverLegacy, which a person
// asks for, applies it and removes it.
func TestALegacyJournalIsListedAndAppliedOnlyOnRequest(t *testing.T) {
	root, stateDir := setup(t)
	want := tree(t, root)
	dir := legacyJournal(t, root)
	planted := tree(t, root)
	j, err := Begin(root, stateDir, "new-run")
	if err != nil {
		t.Fatalf("Begin beside a legacy journal: err = %v, want none", err)
	}
	j.Commit()
	if pending, _ := Pending(stateDir); len(pending) != 0 {
		t.Errorf("Pending = %v, want none", pending)
	}
	if rep := mustRecover(t, root, stateDir); !rep.Empty() {
		t.Errorf("Recover applied the legacy journal:\n%s", rep)
	}
	assertSame(t, planted, root)

	ls, err := Legacy(t.Context(), root, stateDir)
	if err != nil {
		t.Fatal(err)
	}
	wantLs := []LegacyJournal{{Run: "old-run", Dir: dir, Would: Report{Runs: []string{"old-run"}, Restored: []string{"a.txt"}, Removed: []string{"made.txt"}}}}
	if diff := cmp.Diff(wantLs, ls, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Legacy (-want +got):\n%s", diff)
	}
	assertSame(t, planted, root)

	rep, err := RecoverLegacy(t.Context(), root, stateDir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Report{Runs: []string{"old-run"}, Restored: []string{"a.txt"}, Removed: []string{"made.txt"}}, rep, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	got := tree(t, root)
	for p := range got {
		if strings.HasPrefix(p, ".nightshift") {
			delete(got, p)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("workspace (-before +now):\n%s", diff)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the legacy journal is still there: %v", err)
	}
}

// A journal planted in .nightshift/ by a repository (or copied from
// another folder) names another workspace, or none: it is never applied,
// not even on request.
func TestALegacyJournalForAnotherWorkspaceOrNoneIsNeverApplied(t *testing.T) {
	for _, tt := range []struct{ name, root, want string }{
		{"another workspace", "/home/someone/else", "/home/someone/else"},
		{"no workspace", "", "names no workspace"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, _ := setup(t)
			dir := legacyJournal(t, root)
			log, _ := os.ReadFile(filepath.Join(dir, logName))
			log = []byte(strings.Replace(string(log), fmt.Sprintf(`"root":%q,`, root), fmt.Sprintf(`"root":%q,`, tt.root), 1))
			if tt.root == "" {
				log = []byte(strings.Replace(string(log), `"root":"",`, "", 1))
			}
			if err := os.WriteFile(filepath.Join(dir, logName), log, 0o600); err != nil {
				t.Fatal(err)
			}
			ls, err := Legacy(t.Context(), root, t.TempDir())
			if err != nil || len(ls) != 1 || !strings.Contains(ls[0].Refused, tt.want) {
				t.Fatalf("Legacy = %+v, %v; want it refused, naming %q", ls, err, tt.want)
			}
			rep, err := RecoverLegacy(t.Context(), root, t.TempDir())
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("err = %v, want ErrDamaged", err)
			}
			if got := tree(t, root)["made.txt"]; got == "" {
				t.Error("a foreign journal removed made.txt")
			}
			if len(rep.Damaged) != 1 || !strings.Contains(rep.Damaged[0], tt.want) {
				t.Errorf("damage = %v", rep.Damaged)
			}
		})
	}
}

// Issue 10, case 6: a command replaced a journalled folder with a symlink
// that leads out; every rollback failed with "path escapes from parent"
// and the workspace stayed locked. The symlink is inside the workspace:
// it is removed, and the folder restored.
func TestASymlinkThatReplacedAFolderIsRemovedAndTheFolderRestored(t *testing.T) {
	elsewhere := t.TempDir()
	write(t, elsewhere, "outside.txt", "outside\n", 0o644)
	for _, how := range []string{"rollback", "recover"} {
		t.Run(how, func(t *testing.T) {
			root, stateDir := setup(t)
			want := tree(t, root)
			j := begin(t, root, stateDir)
			writeTool(t, j, root, "docs/deep/note.txt", "edited\n")
			if err := j.Snapshot(t.Context()); err != nil {
				t.Fatal(err)
			}
			sh(t, root, "rm -rf docs && ln -s "+elsewhere+" docs")
			if how == "rollback" {
				if err := j.AfterSnapshot(); err != nil {
					t.Fatal(err)
				}
				if _, err := j.Rollback(); err != nil {
					t.Fatalf("Rollback: %v", err)
				}
			} else {
				die(j)
				mustRecover(t, root, stateDir)
			}
			assertSame(t, want, root)
			if b, _ := os.ReadFile(filepath.Join(elsewhere, "outside.txt")); string(b) != "outside\n" {
				t.Errorf("the folder outside was touched: %q", b)
			}
			if entries, _ := os.ReadDir(elsewhere); len(entries) != 1 {
				t.Errorf("the folder outside holds %d entries, want its one file", len(entries))
			}
		})
	}
}

// The judge inherits this: after a command, what it changed is the
// difference between the workspace and the snapshot before it, renames,
// deletions, mode changes and symlinks included, and OnChange hears it.
func TestWhatACommandChangedIsTheDifferenceFromTheSnapshot(t *testing.T) {
	root, stateDir := setup(t)
	j := begin(t, root, stateDir)
	var heard []string
	j.OnChange(func(paths []string) { heard = append(heard, paths...) })
	writeTool(t, j, root, "a.txt", "the tool's\n")
	command(t, j, root, "rm docs/readme.md && echo out > cmd_out.md && mv docs/deep deeper && chmod 700 bin/run.sh"+
		" && ln -sfn bin link && mkdir -p empty/new && echo same > same.txt && rm same.txt")
	want := []string{"bin/run.sh", "cmd_out.md", "deeper/note.txt", "docs/deep", "docs/deep/note.txt", "docs/readme.md", "link"}
	if diff := cmp.Diff(want, heard); diff != "" {
		t.Errorf("changed (-want +got):\n%s", diff)
	}
	// A command that changes nothing says nothing.
	heard = nil
	command(t, j, root, "true")
	if len(heard) != 0 {
		t.Errorf("a command that changed nothing reported %v", heard)
	}
}

// Issue 10, case 3 (recover's part): a command outlived the killed run
// and wrote after recover. recover refuses while a run or a command it
// started is alive in the workspace, and names the process.
func TestRecoverRefusesWhileARunOrItsCommandIsAlive(t *testing.T) {
	root, stateDir := setup(t)
	live := begin(t, root, stateDir)
	writeTool(t, live, root, "a.txt", "live\n")
	_, err := Recover(root, stateDir)
	var busy *BusyError
	if !errors.As(err, &busy) || !slices.Equal(busy.PIDs(), []int{os.Getpid()}) {
		t.Fatalf("Recover beside a live run: err = %v, want a BusyError naming PID %d", err, os.Getpid())
	}
	if !strings.Contains(err.Error(), fmt.Sprint(os.Getpid())) {
		t.Errorf("the error does not name the PID: %v", err)
	}

	// The run dies; the command it started does not.
	cmd := exec.Command("sh", "-c", "read line || true")
	cmd.Env = []string{Mark(root)}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	die(live)
	_, err = Recover(root, stateDir)
	if !errors.As(err, &busy) || !slices.Equal(busy.PIDs(), []int{cmd.Process.Pid}) || !busy.Live[0].Command {
		t.Fatalf("Recover beside a dead run's live command: err = %v, want a BusyError naming PID %d", err, cmd.Process.Pid)
	}
	if got := tree(t, root)["a.txt"]; got != `file -rw-r--r-- "live\n"` {
		t.Errorf("recover changed the workspace while refusing: a.txt = %s", got)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	mustRecover(t, root, stateDir)
	if got := tree(t, root)["a.txt"]; got != `file -rw-r--r-- "alpha\n"` {
		t.Errorf("a.txt = %s after recover", got)
	}
}

func truncate(t *testing.T, p string, n int64) {
	t.Helper()
	if err := os.Truncate(p, n); err != nil {
		t.Fatal(err)
	}
}

func rm(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}

func rmAll(t *testing.T, p string) {
	t.Helper()
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
}
