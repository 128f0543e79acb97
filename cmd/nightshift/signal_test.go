package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSignalEndsRunAndRollsBack sends SIGINT or SIGTERM to a real run
// midway: it ends as interrupted, exit 130, with the workspace put back.
func TestSignalEndsRunAndRollsBack(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String()+" exits 130 with the workspace rolled back", func(t *testing.T) {
			work, scenario := stalledWorkspace(t)
			c := startChild(t, work, "run", "--provider", "scripted", "--scenario", scenario, "--no-judge", "Rewrite notes.txt")
			c.waitFor(t, "[tool · write_file ")
			c.waitFor(t, "[tool · write_file ")
			if err := c.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			code, stderr := c.wait(t)
			if code != 130 {
				t.Fatalf("exit %d, want 130\n%s", code, stderr)
			}
			checkOriginal(t, work)
			for _, want := range []string{"[rollback · ", "[outcome · interrupted "} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if res := runCLI(t, "recover", "--dir", work); !strings.Contains(res.stderr, "nothing to recover") {
				t.Errorf("the interrupted run left a journal to recover: %s", res.stderr)
			}
		})
	}
}

// TestRollbackLeavesAFileChangedByOthers changes a file the run wrote
// while the run is midway (the child's stderr says when), then
// interrupts it: the rollback reports that file and leaves it as the
// other writer left it, and restores the rest.
func TestRollbackLeavesAFileChangedByOthers(t *testing.T) {
	work, scenario := stalledWorkspace(t)
	c := startChild(t, work, "run", "--provider", "scripted", "--scenario", scenario, "--no-judge", "Rewrite notes.txt")
	c.waitFor(t, "[tool · write_file ")
	c.waitFor(t, "[tool · write_file ")
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
