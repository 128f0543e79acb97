package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSignalPausesTheRun sends SIGINT or SIGTERM to a real run midway:
// it ends as interrupted, exit 130, with its changes kept and its
// checkpoint written; the closing lines say how to go on and how to undo,
// the workspace refuses another run naming both, and recover undoes it.
func TestSignalPausesTheRun(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String()+" exits 130 with the run paused", func(t *testing.T) {
			work, scenario := stalledWorkspace(t)
			c := startChild(t, work, "run", "--provider", "scripted", "--scenario", scenario, "--no-judge", "Rewrite notes.txt")
			c.waitFor(t, "[checkpoint · step=1 ")
			if err := c.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			code, stderr := c.wait(t)
			if code != 130 {
				t.Fatalf("exit %d, want 130\n%s", code, stderr)
			}
			if got := readFile(t, filepath.Join(work, "notes.txt")); got != "NEW BYTES\n" {
				t.Errorf("notes.txt = %q, want the paused run's change kept", got)
			}
			for _, want := range []string{"[checkpoint · paused at step 1", "[outcome · interrupted ", "nightshift run --resume ", "nightshift recover --dir " + work} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			res := runCLI(t, "run", "--dir", work, "--provider", "scripted", "--scenario", scenario, "--no-judge", "Something else")
			if res.code != 7 || !strings.Contains(res.stderr, "go on with it: nightshift run --resume ") || !strings.Contains(res.stderr, "or undo it:    nightshift recover --dir "+work) {
				t.Errorf("a new run in the paused workspace: exit %d\n%s\nwant 7 naming --resume and recover", res.code, res.stderr)
			}
			if res := runCLI(t, "recover", "--dir", work); res.code != 0 {
				t.Fatalf("recover: exit %d\n%s", res.code, res.stderr)
			}
			checkOriginal(t, work)
		})
	}
}

// TestRollbackOnInterruptKeepsTheOldBehaviour: with
// --rollback-on-interrupt a signal rolls the run back at once.
func TestRollbackOnInterruptKeepsTheOldBehaviour(t *testing.T) {
	work, scenario := stalledWorkspace(t)
	c := startChild(t, work, "run", "--provider", "scripted", "--scenario", scenario, "--no-judge", "--rollback-on-interrupt", "Rewrite notes.txt")
	c.waitFor(t, "[checkpoint · step=1 ")
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, stderr := c.wait(t)
	if code != 130 || !strings.Contains(stderr, "[rollback · ") {
		t.Fatalf("exit %d, want 130 with a rollback\n%s", code, stderr)
	}
	checkOriginal(t, work)
	if res := runCLI(t, "recover", "--dir", work); !strings.Contains(res.stderr, "nothing to recover") {
		t.Errorf("the interrupted run left a journal to recover: %s", res.stderr)
	}
}

// TestRollbackLeavesAFileChangedByOthers changes a file the run wrote
// while the run is midway (the child's stderr says when), then
// interrupts it (rolled back: --rollback-on-interrupt): the rollback
// reports that file and leaves it as the other writer left it, and
// restores the rest.
func TestRollbackLeavesAFileChangedByOthers(t *testing.T) {
	work, scenario := stalledWorkspace(t)
	c := startChild(t, work, "run", "--provider", "scripted", "--scenario", scenario, "--no-judge", "--rollback-on-interrupt", "Rewrite notes.txt")
	c.waitFor(t, "[checkpoint · step=1 ")
	const mine = "written by the person in their editor\n"
	created := filepath.Join(work, "created.txt")
	if err := os.WriteFile(created, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, stderr := c.wait(t)
	if code != 130 {
		t.Fatalf("exit %d, want 130\n%s", code, stderr)
	}
	if got := readFile(t, created); got != mine {
		t.Errorf("created.txt = %q, want it left as the other writer left it", got)
	}
	if got := readFile(t, filepath.Join(work, "notes.txt")); got != originalNotes {
		t.Errorf("notes.txt = %q, want the original restored", got)
	}
	if !strings.Contains(stderr, "conflicts=1") || !strings.Contains(stderr, "changed by something else during the run): created.txt") {
		t.Errorf("stderr does not report the conflict on created.txt:\n%s", stderr)
	}
}
