package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var goOnLine = regexp.MustCompile(`(?m)^\s+go on:\s+nightshift (run --resume \S+ --state-dir \S+)`)

// Regression: a batch task paused by its budget could not be resumed:
// its checkpoint recorded no configuration ("has no configuration
// recorded by nightshift run"), and the summary named neither its run ID
// nor a command. The summary names both, and the command it names
// finishes the task in its workspace, its checks and judge as the batch
// gave them.
func TestAPausedBatchTaskResumesWithTheCommandItsSummaryNames(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	writeFiles(t, dir, map[string]string{
		"s.yaml":     tenSteps(false),
		"tasks.yaml": "- name: nine\n  task: Write nine files.\n  checks: [exists:f9.txt]\n",
	})
	// Each scripted call is some 700 tokens: 3000 allow a few steps of ten.
	res := runCLI(t, "batch", "--tasks", filepath.Join(dir, "tasks.yaml"), "--work", filepath.Join(dir, "work"),
		"--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--no-judge",
		"--budget-tokens", "3000", "--state-dir", state)
	if res.code != 8 {
		t.Fatalf("exit %d, want 8\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	m := goOnLine.FindStringSubmatch(res.stdout)
	if m == nil || !strings.Contains(res.stdout, "nine (budget)") || !strings.Contains(res.stdout, "undo:   nightshift recover --dir ") {
		t.Fatalf("the summary names no resume command for the paused task:\n%s", res.stdout)
	}
	args := append(strings.Fields(m[1]), "--budget-tokens", "100000")
	res = runCLI(t, args...)
	if res.code != 0 || !strings.Contains(res.stderr, "resumed at step ") || !strings.Contains(res.stderr, "[verify · PASS]") {
		t.Fatalf("%v: exit %d, want 0 resumed and verified\n%s", args, res.code, res.stderr)
	}
	if got := readFile(t, filepath.Join(dir, "work", "001-nine", "f9.txt")); got != "file 9\n" {
		t.Errorf("f9.txt = %q", got)
	}
}
