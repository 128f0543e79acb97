package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/ledger"
)

// TestTaskAddKeepsATasksOwnVerifyKeys: `task add` takes a night task's
// own verify keys (the run spec's verify group, over the builder role's):
// a bad one is a usage error naming its flag, and the output schema is
// kept by its content, never read from its path again.
func TestTaskAddKeepsATasksOwnVerifyKeys(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	writeFiles(t, dir, map[string]string{"answer.json": `{"type": "object"}`})
	if _, _, err := execute(t, newTaskCmd(), "add", "x", "--check", "min-chars:a.md:many", "--db", db); exitOf(err) != 2 || !strings.Contains(err.Error(), "check") {
		t.Errorf("a bad check: %v (exit %d), want 2 naming it", err, exitOf(err))
	}
	if _, _, err := execute(t, newTaskCmd(), "add", "x", "--max-verify-rounds=-1", "--db", db); exitOf(err) != 2 || !strings.Contains(err.Error(), "--max-verify-rounds") {
		t.Errorf("negative rounds: %v (exit %d), want 2 naming --max-verify-rounds", err, exitOf(err))
	}
	id, _, err := execute(t, newTaskCmd(), "add", "the install guide", "--check", "exists:docs/install.md", "--rubric", "all five steps",
		"--judge", "j", "--max-verify-rounds", "1", "--output-schema", filepath.Join(dir, "answer.json"), "--db", db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	l, err := ledger.Open(ctx, db, ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx) //nolint:errcheck // test cleanup
	task, err := l.Task(ctx, 1)
	if err != nil || strings.TrimSpace(id) != "1" {
		t.Fatalf("task %q: %v", id, err)
	}
	v := task.Verify
	if v == nil || strings.Join(v.Checks, ",") != "exists:docs/install.md" || v.Rubric != "all five steps" || v.JudgeModel != "j" ||
		v.MaxVerifyRounds != 1 || strings.ReplaceAll(string(v.Schema), " ", "") != `{"type":"object"}` {
		t.Errorf("the task's keys %+v", v)
	}
	if _, _, err := execute(t, newTaskCmd(), "add", "plain", "--db", db); err != nil {
		t.Fatal(err)
	}
	if plain, _ := l.Task(ctx, 2); plain.Verify != nil {
		t.Errorf("a task without keys has %+v, want none", plain.Verify)
	}
}
