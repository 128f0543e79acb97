package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tenSteps is a ten-step run: nine writes, one a step, then the answer.
// With slow set, the sixth call takes an hour, so that a kill after the
// fifth step's checkpoint lands while it waits.
func tenSteps(slow bool) string {
	var b strings.Builder
	b.WriteString("turns:\n")
	for i := 1; i <= 9; i++ {
		delay := ""
		if slow && i == 6 {
			delay = "delay: 1h, "
		}
		fmt.Fprintf(&b, "  - {%stool_calls: [{name: write_file, input: {path: f%d.txt, content: \"file %d\\n\"}}]}\n", delay, i, i)
	}
	b.WriteString("  - text: Wrote nine files.\n")
	return b.String()
}

var runIDLine = regexp.MustCompile(`^\[start · run=(\S+) `)

// TestSIGKILLAfterStep5Of10ThenResume: a real run is killed with SIGKILL
// after its fifth step's checkpoint; `nightshift run --resume` finishes it
// with five more model calls, not ten, and leaves exactly the workspace an
// uninterrupted run leaves.
func TestSIGKILLAfterStep5Of10ThenResume(t *testing.T) {
	dir := t.TempDir()
	work, whole := filepath.Join(dir, "work"), filepath.Join(dir, "whole")
	scenario := filepath.Join(dir, "s.yaml")
	writeFiles(t, dir, map[string]string{"work/notes.txt": "notes\n", "whole/notes.txt": "notes\n", "s.yaml": tenSteps(true)})

	c := startChild(t, work, "run", "--provider", "scripted", "--scenario", scenario, "--no-judge", "Write nine files")
	m := runIDLine.FindStringSubmatch(c.waitFor(t, "[start · "))
	if m == nil {
		t.Fatal("no run ID on the start line")
	}
	run := m[1]
	c.waitFor(t, "[checkpoint · step=5 ")
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code, stderr := c.wait(t); code != -1 {
		t.Fatalf("the child exited %d, want killed\n%s", code, stderr)
	}

	// The same configuration (the same scenario file), now answering
	// at once.
	writeFiles(t, dir, map[string]string{"s.yaml": tenSteps(false)})
	res := runCLI(t, "run", "--resume", run)
	if res.code != 0 {
		t.Fatalf("resume: exit %d\n%s", res.code, res.stderr)
	}
	if n := strings.Count(res.stderr, "[turn · "); n != 5 {
		t.Errorf("the resumed run made %d model calls, want 5:\n%s", n, res.stderr)
	}
	for _, want := range []string{"resumed at step 5]", "[outcome · done steps=10 "} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	if strings.TrimSpace(res.stdout) != "Wrote nine files." {
		t.Errorf("stdout %q", res.stdout)
	}

	uninterrupted := runCLI(t, "run", "--dir", whole, "--provider", "scripted", "--scenario", scenario, "--no-judge", "Write nine files")
	if uninterrupted.code != 0 {
		t.Fatalf("the uninterrupted run: exit %d\n%s", uninterrupted.code, uninterrupted.stderr)
	}
	if diff := cmp.Diff(treeOf(t, whole), treeOf(t, work)); diff != "" {
		t.Errorf("the resumed workspace differs from an uninterrupted run's (-uninterrupted +resumed):\n%s", diff)
	}
	if res := runCLI(t, "recover", "--dir", work); !strings.Contains(res.stderr, "nothing to recover") {
		t.Errorf("the finished run left something to recover: %s", res.stderr)
	}
}

func TestBudgetPausesWithExit9AndResumesWithAHigherBudget(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	scenario := filepath.Join(dir, "s.yaml")
	writeFiles(t, dir, map[string]string{"work/notes.txt": "notes\n", "s.yaml": tenSteps(false)})
	// Each scripted call is some 700 tokens (the tools' schemas): 3000
	// tokens allow a few steps, not ten.
	res := runCLI(t, "run", "--dir", work, "--provider", "scripted", "--scenario", scenario, "--no-judge", "--budget-tokens", "3000", "Write nine files")
	if res.code != 9 {
		t.Fatalf("exit %d, want 9 (budget)\n%s", res.code, res.stderr)
	}
	for _, want := range []string{"[budget · stop: ", "[checkpoint · paused at step ", "nightshift: budget after ", "cost: $0.0000",
		"go on:  nightshift run --resume ", "[--budget-usd X | --budget-tokens N]", "undo:   nightshift recover --dir " + work} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	run := runIDLine.FindStringSubmatch(firstLine(res.stderr, "[start · "))[1]

	t.Run("resume refuses any flag but the budget and time limits, exit 2", func(t *testing.T) {
		for _, args := range [][]string{
			{"run", "--resume", run, "--max-steps", "30"},
			{"run", "--resume", run, "--provider", "scripted"},
			{"run", "--resume", run, "another task"},
		} {
			res := runCLI(t, args...)
			if res.code != 2 || !strings.Contains(res.stderr, "--resume") {
				t.Errorf("%v: exit %d, want 2 naming --resume\n%s", args, res.code, res.stderr)
			}
		}
	})
	t.Run("resumed without a higher budget it pauses again at once", func(t *testing.T) {
		res := runCLI(t, "run", "--resume", run)
		if res.code != 9 || strings.Contains(res.stderr, "[turn · ") {
			t.Errorf("exit %d, want 9 with no call made\n%s", res.code, res.stderr)
		}
	})
	t.Run("resumed with a higher budget it finishes", func(t *testing.T) {
		res := runCLI(t, "run", "--resume", run, "--budget-tokens", "100000")
		if res.code != 0 || !strings.Contains(res.stderr, "[outcome · done steps=10 ") {
			t.Fatalf("exit %d, want 0 after 10 steps in all\n%s", res.code, res.stderr)
		}
		if got := readFile(t, filepath.Join(work, "f9.txt")); got != "file 9\n" {
			t.Errorf("f9.txt = %q", got)
		}
	})
	t.Run("a finished run cannot be resumed", func(t *testing.T) {
		res := runCLI(t, "run", "--resume", run)
		if res.code != 2 {
			t.Errorf("exit %d, want 2\n%s", res.code, res.stderr)
		}
	})
}

func firstLine(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

func TestADollarBudgetNeedsAPrice(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"work/notes.txt": "notes\n",
		"s.yaml":         tenSteps(false),
		// A row for the scripted model named "mystery" without prices.
		"models.yaml": "models:\n  - {provider: scripted, model: mystery, source: a test, as_of: 2026-11-30}\n",
	})
	res := runCLI(t, "run", "--dir", filepath.Join(dir, "work"), "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"),
		"--model", "mystery", "--models", filepath.Join(dir, "models.yaml"), "--no-judge", "--budget-usd", "1", "Write nine files")
	if res.code != 2 || !strings.Contains(res.stderr, "no price for scripted mystery") || strings.Contains(res.stderr, "[start") {
		t.Errorf("exit %d, want 2 before anything runs, naming the model\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "work", "f1.txt")); err == nil {
		t.Error("the run ran")
	}
}

// TestAResumedRunKeepsItsEcosystem: a run started with --memory and
// --otel-file, paused by its budget, is resumed with the tools and the
// traces it started with: its remember call still finds the tool, and the
// resumed part is traced to the same file. Before, --resume rebuilt the
// run from settings that had no ecosystem flags, so the resumed run had
// neither.
func TestAResumedRunKeepsItsEcosystem(t *testing.T) {
	dir := t.TempDir()
	work, spans := filepath.Join(dir, "work"), filepath.Join(dir, "spans.jsonl")
	var b strings.Builder
	b.WriteString("turns:\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "  - {tool_calls: [{name: write_file, input: {path: f%d.txt, content: \"file %d\\n\"}}]}\n", i, i)
	}
	b.WriteString("  - {tool_calls: [{name: remember, input: {note: \"the files are numbered from 1\"}}]}\n")
	b.WriteString("  - text: Wrote eight files and kept a note.\n")
	writeFiles(t, dir, map[string]string{"work/notes.txt": "notes\n", "s.yaml": b.String()})
	res := runCLI(t, "run", "--dir", work, "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--no-judge",
		"--memory", "--otel-file", spans, "--budget-tokens", "3000", "Write eight files")
	if res.code != 9 {
		t.Fatalf("exit %d, want 9 (budget)\n%s", res.code, res.stderr)
	}
	run := runIDLine.FindStringSubmatch(firstLine(res.stderr, "[start · "))[1]
	if err := os.Remove(spans); err != nil {
		t.Fatalf("the paused run wrote no traces: %v", err)
	}
	res = runCLI(t, "run", "--resume", run, "--budget-tokens", "100000")
	if res.code != 0 || !strings.Contains(res.stderr, "[outcome · done ") {
		t.Fatalf("resume: exit %d, want 0\n%s", res.code, res.stderr)
	}
	if strings.Contains(res.stderr, "unknown tool") {
		t.Errorf("the resumed run lost the memory tools:\n%s", res.stderr)
	}
	if got, err := os.ReadFile(spans); err != nil || !strings.Contains(string(got), `"gen_ai.operation.name"`) {
		t.Errorf("the resumed run traced nothing to %s (%v): %.300s", spans, err, got)
	}
}
