package journal

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestRecoverRestoresADeadRun(t *testing.T) {
	root, stateDir := setup(t)
	want := tree(t, root)
	j := begin(t, root, stateDir)
	change(t, j, "a.txt", func() error { return os.WriteFile(filepath.Join(root, "a.txt"), []byte("half"), 0o644) })
	change(t, j, "docs/readme.md", func() error { return os.Remove(filepath.Join(root, "docs/readme.md")) })
	change(t, j, "made.txt", func() error { return os.WriteFile(filepath.Join(root, "made.txt"), nil, 0o644) })
	die(j)

	pending, err := Pending(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"run-1"}, pending); diff != "" {
		t.Errorf("Pending (-want +got):\n%s", diff)
	}
	rep, err := Recover(root, stateDir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, tree(t, root)); diff != "" {
		t.Errorf("workspace after recover (-before the run +now):\n%s", diff)
	}
	wantRep := Report{Runs: []string{"run-1"}, Restored: []string{"a.txt"}, Removed: []string{"made.txt"}, Recreated: []string{"docs/readme.md"}}
	if diff := cmp.Diff(wantRep, rep, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	if pending, _ := Pending(stateDir); len(pending) != 0 {
		t.Errorf("Pending after Recover = %v, want none", pending)
	}
}

func TestRecoverWithNothingToDo(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, root, stateDir string)
	}{
		{"a workspace that never ran is fine", func(*testing.T, string, string) {}},
		{"a run that committed leaves nothing", func(t *testing.T, root, stateDir string) {
			j := begin(t, root, stateDir)
			if err := j.Commit(); err != nil {
				t.Fatal(err)
			}
		}},
		{"a run that died before changing anything is just cleaned up", func(t *testing.T, root, stateDir string) {
			die(begin(t, root, stateDir))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, stateDir := setup(t)
			want := tree(t, root)
			tt.prepare(t, root, stateDir)
			rep, err := Recover(root, stateDir)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Empty() {
				t.Errorf("report = %+v, want empty", rep)
			}
			if diff := cmp.Diff(want, tree(t, root)); diff != "" {
				t.Errorf("workspace (-want +got):\n%s", diff)
			}
			if pending, _ := Pending(stateDir); len(pending) != 0 {
				t.Errorf("Pending = %v, want none", pending)
			}
		})
	}
}

func TestRecoverAfterDyingDuringACommand(t *testing.T) {
	root, stateDir := setup(t)
	want := tree(t, root)
	j := begin(t, root, stateDir)
	if err := j.Snapshot(t.Context()); err != nil {
		t.Fatal(err)
	}
	// The command got this far when the process died: no AfterSnapshot.
	write(t, root, "a.txt", "cmd", 0o644)
	mkdir(t, root, "build", 0o755)
	write(t, root, "build/out.o", "obj", 0o644)
	die(j)

	rep, err := Recover(root, stateDir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, tree(t, root)); diff != "" {
		t.Errorf("workspace after recover (-before the run +now):\n%s", diff)
	}
	wantRep := Report{Runs: []string{"run-1"}, Restored: []string{"a.txt"}, Removed: []string{"build", "build/out.o"}}
	if diff := cmp.Diff(wantRep, rep, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}

func TestRecoverNewestFirst(t *testing.T) {
	root, stateDir := setup(t)
	// The first run dies after a write; somebody skips recovery and a
	// second run (begun by hand, as Begin would refuse) writes again.
	j1, err := Begin(root, stateDir, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	change(t, j1, "a.txt", func() error { return os.WriteFile(filepath.Join(root, "a.txt"), []byte("one"), 0o644) })
	die(j1)
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	j2, err := create(r, root, stateDir, "run-2")
	if err != nil {
		t.Fatal(err)
	}
	change(t, j2, "a.txt", func() error { return os.WriteFile(filepath.Join(root, "a.txt"), []byte("two"), 0o644) })
	die(j2)

	pending, err := Pending(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"run-2", "run-1"}, pending); diff != "" {
		t.Errorf("Pending (-want +got):\n%s", diff)
	}
	if _, err := Recover(root, stateDir); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, root)["a.txt"]; got != `file -rw-r--r-- "alpha\n"` {
		t.Errorf("a.txt = %s, want the content before both runs", got)
	}
}

func TestBeginRefusesWhileAnotherJournalExists(t *testing.T) {
	root, stateDir := setup(t)
	live := begin(t, root, stateDir)
	if _, err := Begin(root, stateDir, "run-2"); !errors.Is(err, ErrBusy) {
		t.Errorf("Begin beside a live run: err = %v, want ErrBusy", err)
	}
	if pending, _ := Pending(stateDir); len(pending) != 0 {
		t.Errorf("Pending counts a live run: %v", pending)
	}
	change(t, live, "a.txt", func() error { return os.WriteFile(filepath.Join(root, "a.txt"), nil, 0o644) })
	die(live)

	_, err := Begin(root, stateDir, "run-2")
	var needs *NeedsRecoveryError
	if !errors.Is(err, ErrNeedsRecovery) || !errors.As(err, &needs) {
		t.Fatalf("Begin after a dead run: err = %v, want a NeedsRecoveryError", err)
	}
	if diff := cmp.Diff([]string{"run-1"}, needs.Runs); diff != "" {
		t.Errorf("runs needing recovery (-want +got):\n%s", diff)
	}
	if _, err := Recover(root, stateDir); err != nil {
		t.Fatal(err)
	}
	j, err := Begin(root, stateDir, "run-2")
	if err != nil {
		t.Fatalf("Begin after Recover: %v", err)
	}
	j.Commit()
}

// TestRecoverAfterSIGKILLRightAfterAWrite kills a real process with
// SIGKILL the moment its write has returned, then recovers: the journal
// must already have been on disk.
func TestRecoverAfterSIGKILLRightAfterAWrite(t *testing.T) {
	root, stateDir := setup(t)
	want := tree(t, root)

	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriterProcess$")
	cmd.Env = append(os.Environ(), "JOURNAL_HELPER_ROOT="+root, "JOURNAL_HELPER_STATE="+stateDir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	// The helper waits on its stdin, which we never write to.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("helper said nothing: %v", err)
	}
	if line != "written\n" {
		t.Fatalf("helper said %q", line)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if got := tree(t, root)["a.txt"]; got != `file -rw-r--r-- "overwritten by the run"` {
		t.Fatalf("the helper did not write: a.txt = %s", got)
	}

	if _, err := Begin(root, stateDir, "next"); !errors.Is(err, ErrNeedsRecovery) {
		t.Errorf("Begin after the kill: err = %v, want ErrNeedsRecovery", err)
	}
	if _, err := Recover(root, stateDir); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, tree(t, root)); diff != "" {
		t.Errorf("workspace after recover (-before the run +now):\n%s", diff)
	}
}

// TestHelperWriterProcess is the process killed above: it journals and
// writes two files, says so, and waits to be killed.
func TestHelperWriterProcess(t *testing.T) {
	root := os.Getenv("JOURNAL_HELPER_ROOT")
	if root == "" {
		t.Skip("run by TestRecoverAfterSIGKILLRightAfterAWrite")
	}
	j, err := Begin(root, os.Getenv("JOURNAL_HELPER_STATE"), "killed")
	if err != nil {
		fmt.Println("begin:", err)
		os.Exit(1)
	}
	must := func(err error) {
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
	}
	must(j.Before("a.txt"))
	must(os.WriteFile(filepath.Join(root, "a.txt"), []byte("overwritten by the run"), 0o644))
	j.After("a.txt")
	must(j.Before("gen/new.txt"))
	must(os.MkdirAll(filepath.Join(root, "gen"), 0o755))
	must(os.WriteFile(filepath.Join(root, "gen/new.txt"), []byte("new"), 0o644))
	// No After: the kill comes right after the write returns.
	fmt.Println("written")
	io.ReadAll(os.Stdin)
	os.Exit(1)
}
