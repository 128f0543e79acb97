package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestNightDocsFirstPipeline runs docs/night.md's first pipeline as a new
// user would: its four files, then task add, night and report. Only the
// window is moved to around now, so the test never waits for midnight.
func TestNightDocsFirstPipeline(t *testing.T) {
	doc, err := os.ReadFile("../../docs/night.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	start, end := strings.Index(s, "## A first pipeline"), strings.Index(s, "## The commands")
	if start < 0 || end < start {
		t.Fatal("docs/night.md lost its sections A first pipeline and The commands")
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(s[start:end], -1)
	names := []string{"pipeline.yaml", "ideas.yaml", "scorer.yaml", "maker.yaml"}
	if len(blocks) != len(names) {
		t.Fatalf("the section holds %d YAML files, want %d", len(blocks), len(names))
	}
	dir := t.TempDir()
	now := time.Now().UTC()
	window := fmt.Sprintf(`window: {start: "%s", end: "%s"}`, now.Add(-time.Hour).Format("15:04"), now.Add(time.Hour).Format("15:04"))
	for i, name := range names {
		text := regexp.MustCompile(`(?m)^window: .*$`).ReplaceAllString(blocks[i][1], window)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(dir, "night.db")
	if id, _, err := execute(t, newTaskCmd(), "add", "a poster of the planets", "--db", db); err != nil || strings.TrimSpace(id) != "1" {
		t.Fatalf("task add: %q, %v", id, err)
	}
	_, stderr, err := execute(t, newNightCmd(), "--pipeline", filepath.Join(dir, "pipeline.yaml"), "--db", db)
	if err != nil {
		t.Fatalf("night: %v\n%s", err, stderr)
	}
	rep, _, err := execute(t, newReportCmd(), "--db", db)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"the proposer reached its ceiling; nothing takeable: 0 queued", "steps finished: proposer 2, judge 2, builder 3",
		"tasks: 3 done"} {
		if !strings.Contains(rep, want) {
			t.Errorf("the report lacks %q, as docs/night.md says:\n%s", want, rep)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "work", "task-1", "result.md")); err != nil || len(data) == 0 {
		t.Errorf("work/task-1/result.md: %q, %v", data, err)
	}
}
