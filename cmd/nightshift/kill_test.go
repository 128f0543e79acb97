package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestKilledRunIsRecovered kills a real `nightshift run` with SIGKILL
// right after a write returned (the child's own [tool · write_file] line
// says when), then shows the next run refusing to start (exit 7) and
// `nightshift recover` bringing back the exact original bytes and mode.
func TestKilledRunIsRecovered(t *testing.T) {
	work, scenario, c := killedRun(t)
	code, stderr := c.wait(t)
	if code != -1 {
		t.Fatalf("the child exited %d, want killed\n%s", code, stderr)
	}
	if got := readFile(t, filepath.Join(work, "notes.txt")); got != "NEW BYTES\n" {
		t.Fatalf("notes.txt = %q after the kill, want the run's write", got)
	}

	t.Run("the next run in that folder refuses with exit 7 and names nightshift recover", func(t *testing.T) {
		res := runCLI(t, "run", "--dir", work, "--provider", "scripted", "--scenario", scenario, "--no-judge", "Rewrite notes.txt")
		if res.code != 7 {
			t.Fatalf("exit %d, want 7\n%s", res.code, res.stderr)
		}
		if want := "nightshift recover --dir " + work; !strings.Contains(res.stderr, want) {
			t.Errorf("stderr does not say to run %q:\n%s", want, res.stderr)
		}
		if strings.Contains(res.stderr, "[start") {
			t.Errorf("the refused run started anyway:\n%s", res.stderr)
		}
		if got := readFile(t, filepath.Join(work, "notes.txt")); got != "NEW BYTES\n" {
			t.Errorf("the refused run touched notes.txt: %q", got)
		}
	})

	t.Run("recover restores the exact original bytes and mode", func(t *testing.T) {
		res := runCLI(t, "recover", "--dir", work)
		if res.code != 0 {
			t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
		}
		checkOriginal(t, work)
		if !strings.Contains(res.stderr, "recovered") {
			t.Errorf("recover does not say what it did:\n%s", res.stderr)
		}
	})

	t.Run("recover again has nothing to recover and exits 0", func(t *testing.T) {
		res := runCLI(t, "recover", "--dir", work)
		if res.code != 0 || !strings.Contains(res.stderr, "nothing to recover") {
			t.Fatalf("exit %d, stderr %q; want 0 and nothing to recover", res.code, res.stderr)
		}
		checkOriginal(t, work)
	})

	t.Run("a run may start again after recovery", func(t *testing.T) {
		res := runCLI(t, "run", "--dir", work, "--provider", "scripted", "--scenario", scenario, "--no-judge", "--max-steps", "1", "Rewrite notes.txt")
		if res.code != 3 {
			t.Fatalf("exit %d, want 3 (step-limit)\n%s", res.code, res.stderr)
		}
		checkOriginal(t, work)
	})
}

// TestRecoverDuringALiveRunRefusesNamingItsPID: `nightshift recover`
// beside a run that is still going said "nothing to recover" (issue 17).
// It refuses with exit 7, names the run's PID and how to stop it, and
// leaves the run's changes alone; once the run is gone, recover restores.
func TestRecoverDuringALiveRunRefusesNamingItsPID(t *testing.T) {
	work, scenario := stalledWorkspace(t)
	c := startChild(t, work, "run", "--provider", "scripted", "--scenario", scenario, "--no-judge", "Rewrite notes.txt")
	c.waitFor(t, "[tool · write_file ")
	c.waitFor(t, "[tool · write_file ")

	res := runCLI(t, "recover", "--dir", work)
	pid := fmt.Sprint(c.cmd.Process.Pid)
	if res.code != 7 || !strings.Contains(res.stderr, "PID "+pid) || !strings.Contains(res.stderr, "kill "+pid) ||
		strings.Contains(res.stderr, "nothing to recover") {
		t.Fatalf("recover beside a live run: exit %d, want 7 naming PID %s\n%s", res.code, pid, res.stderr)
	}
	if got := readFile(t, filepath.Join(work, "notes.txt")); got != "NEW BYTES\n" {
		t.Fatalf("recover changed the live run's workspace: notes.txt = %q", got)
	}

	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.wait(t)
	if res := runCLI(t, "recover", "--dir", work); res.code != 0 {
		t.Fatalf("recover once the run is gone: exit %d\n%s", res.code, res.stderr)
	}
	checkOriginal(t, work)
}
