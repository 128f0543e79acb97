package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// resumableBatch is a scenario for four tasks, by their text: a is done
// in two calls; b writes a file a call, ten in all, and so pauses at a
// small token budget; c runs a command that tells the test it started
// (through the FIFO) and then waits, where the test interrupts the batch;
// d is never reached before that. Each then writes its file and is done.
func resumableBatch(fifo string) string {
	return fmt.Sprintf(`
scripts:
  - name: a
    when: {contains: "task a", in: all}
    turns:
      - tool_calls: [{name: write_file, input: {path: a.txt, content: "a\n"}}]
      - text: "Wrote a.txt."
  - name: b
    when: {contains: "task b", in: all}
    turns:
%s      - text: "Wrote nine files."
  - name: c
    when: {contains: "task c", in: all}
    turns:
      - tool_calls: [{name: run_command, input: {command: "echo started > %s; sleep 3600"}}]
      - tool_calls: [{name: write_file, input: {path: c.txt, content: "c\n"}}]
      - text: "Wrote c.txt."
  - name: d
    when: {contains: "task d", in: all}
    turns:
      - tool_calls: [{name: write_file, input: {path: d.txt, content: "d\n"}}]
      - text: "Wrote d.txt."
`, nineWrites(), fifo)
}

func nineWrites() string {
	var b strings.Builder
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "      - tool_calls: [{name: write_file, input: {path: f%d.txt, content: \"file %d\\n\"}}]\n", i, i)
	}
	return b.String()
}

// TestBatchResumeFinishesThePausedAndNeverStartedTasksAndNothingTwice is
// issue 24's acceptance test of `batch --resume`: an interrupted batch
// (one task done, one paused by its budget, one interrupted, one never
// started) goes on with the interrupted batch's --tasks and --work: the
// paused and interrupted tasks resume from their checkpoints, the
// never-started one starts, the done one is not run again.
func TestBatchResumeFinishesThePausedAndNeverStartedTasksAndNothingTwice(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "started.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	state := filepath.Join(dir, "state")
	work := filepath.Join(dir, "work")
	writeFiles(t, dir, map[string]string{
		"s.yaml": resumableBatch(fifo),
		"tasks.yaml": "- {name: a, task: Write a.txt (task a)., checks: [exists:a.txt]}\n" +
			"- {name: b, task: Write nine files (task b)., checks: [exists:f9.txt]}\n" +
			"- {name: c, task: Write c.txt (task c)., checks: [exists:c.txt]}\n" +
			"- {name: d, task: Write d.txt (task d)., checks: [exists:d.txt]}\n",
	})
	c := startChild(t, dir, "batch", "--tasks", "tasks.yaml", "--work", work, "--parallel", "1",
		"--provider", "scripted", "--scenario", "s.yaml", "--no-judge", "--sandbox", "none", "--approve", "run_command=allow",
		"--budget-tokens", "3000", "--state-dir", state)
	// c's command has started: the batch is midway.
	f, err := os.Open(fifo)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code, stderr := c.wait(t); code != 130 {
		t.Fatalf("interrupted batch: exit %d, want 130\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(work, "004-d")); !os.IsNotExist(err) {
		t.Fatalf("d has a workspace (%v): it must not have started", err)
	}

	res := runCLI(t, "batch", "--resume", "--tasks", filepath.Join(dir, "tasks.yaml"), "--work", work, "--state-dir", state, "--budget-tokens", "100000")
	if res.code != 0 {
		t.Fatalf("batch --resume: exit %d, want 0\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	for name, file := range map[string]string{"001-a": "a.txt", "002-b": "f9.txt", "003-c": "c.txt", "004-d": "d.txt"} {
		if _, err := os.Stat(filepath.Join(work, name, file)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if !strings.Contains(res.stdout, "done 4 · unverified 0 · failed 0") || !strings.Contains(res.stdout, "done (earlier)") {
		t.Errorf("summary: want all four done, a's from before:\n%s", res.stdout)
	}
	// Nothing twice: a ran once, b and c went on from their checkpoints
	// (c's command was not run again: its outcome is unknown to the model).
	logs := map[string]string{}
	for _, n := range []string{"001-a", "002-b", "003-c"} {
		logs[n] = readFile(t, filepath.Join(work, n+".log"))
	}
	if strings.Contains(logs["001-a"], "going on") || strings.Count(logs["001-a"], "[start ·") != 1 {
		t.Errorf("a ran again:\n%s", logs["001-a"])
	}
	for _, n := range []string{"002-b", "003-c"} {
		if !strings.Contains(logs[n], "batch --resume: going on with run") || !strings.Contains(logs[n], "resumed at step ") {
			t.Errorf("%s was not resumed from its checkpoint:\n%s", n, logs[n])
		}
	}
	if strings.Count(logs["003-c"], "[tool · run_command")-strings.Count(logs["003-c"], "[tool · run_command outcome unknown") > 1 {
		t.Errorf("c's command ran twice:\n%s", logs["003-c"])
	}
}
