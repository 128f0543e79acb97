package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/statedir"
)

// Regression (issue 23): a second `nightshift run` in a workspace where
// another run is active exited 1, which the outcome table keeps for "a
// bug, a disk error". It ends busy, exit 12, naming the other run's
// process and what to do, and changes nothing.
func TestASecondRunInABusyWorkspaceEndsBusy(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	writeFiles(t, dir, map[string]string{
		"work/a.txt": "alpha\n",
		"s.yaml":     "turns:\n  - tool_calls: [{name: write_file, input: {path: a.txt, content: changed}}]\n  - text: done\n",
	})
	stateBase := filepath.Join(dir, "state")
	state, err := statedir.Workspace(stateBase, work)
	if err != nil {
		t.Fatal(err)
	}
	// The other run: a live journal, held by this process.
	other, err := journal.Begin(work, state, "the-other-run")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Commit() //nolint:errcheck // the test is over

	res := runCLI(t, "run", "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"),
		"--dir", work, "--state-dir", stateBase, "--no-judge", "Change a.txt")
	if res.code != 12 || res.code != exitFor(agent.Busy) {
		t.Fatalf("exit %d, want 12 (busy)\n%s", res.code, res.stderr)
	}
	for _, want := range []string{
		"run the-other-run",
		fmt.Sprintf("PID %d", os.Getpid()),
		"nothing was run",
		fmt.Sprintf("kill %d", os.Getpid()),
		"another --dir",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("the message lacks %q:\n%s", want, res.stderr)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(work, "a.txt")); string(b) != "alpha\n" {
		t.Errorf("a.txt = %q: the busy run changed the workspace", b)
	}
}
