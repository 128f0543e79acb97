package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// rewriter writes a JSON answer file, rewrites its own output schema and
// model table in the workspace (the checks and the prices it would
// rather have), writes one file a call until its budget pauses it, then
// answers JSON its first schema refuses.
const rewriter = `
turns:
  - tool_calls: [{name: write_file, input: {path: schema.json, content: "{}"}}]
  - tool_calls: [{name: write_file, input: {path: models.yaml, content: "models: [{provider: scripted, model: scripted, price: {input: 0, output: 0}}]\n"}}]
  - tool_calls: [{name: write_file, input: {path: f1.txt, content: "1"}}]
  - tool_calls: [{name: write_file, input: {path: f2.txt, content: "2"}}]
  - tool_calls: [{name: write_file, input: {path: f3.txt, content: "3"}}]
  - text: '{"nothing": 1}'
`

// TestAWorkerRewritingItsSchemaOrModelsFileChangesNothingAfterResume is
// issue 24's acceptance test: a resumed run read its output schema and
// its --models file from disk again, files in the workspace the worker
// can rewrite; a worker that rewrote its schema to {} and its prices to 0
// ended done (and past its budget) after --resume. The checkpoint keeps
// what they held at the start.
func TestAWorkerRewritingItsSchemaOrModelsFileChangesNothingAfterResume(t *testing.T) {
	dir := t.TempDir()
	work, state := filepath.Join(dir, "work"), filepath.Join(dir, "state")
	writeFiles(t, dir, map[string]string{
		"s.yaml":           rewriter,
		"work/schema.json": `{"type": "object", "required": ["steps"]}`,
		"work/models.yaml": "models: [{provider: scripted, model: scripted, price: {input: 1000, output: 1000}}]\n",
	})
	res := runCLI(t, "run", "--dir", work, "--state-dir", state, "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"),
		"--no-judge", "--output-schema", filepath.Join(work, "schema.json"), "--models", filepath.Join(work, "models.yaml"),
		"--budget-usd", "5", "Answer as JSON")
	if res.code != 9 {
		t.Fatalf("exit %d, want 9 (paused by its budget)\n%s", res.code, res.stderr)
	}
	before := costOf(t, res.stderr)
	m := goOnLine.FindStringSubmatch(res.stderr)
	if m == nil {
		t.Fatalf("no resume command:\n%s", res.stderr)
	}
	args := append(strings.Fields(m[1]), "--budget-usd", "1000000")
	res = runCLI(t, args...)
	if res.code == 0 {
		t.Errorf("resumed run ended done: it was checked by the schema the worker wrote\n%s", res.stderr)
	}
	if after := costOf(t, res.stderr); after <= before {
		t.Errorf("the resumed calls cost nothing ($%.4f then $%.4f): they were priced by the table the worker wrote\n%s", before, after, res.stderr)
	}
}

var costRe = regexp.MustCompile(`cost: \$([0-9.]+)`)

// costOf is the cost a run's closing line states.
func costOf(t *testing.T, stderr string) float64 {
	t.Helper()
	m := costRe.FindAllStringSubmatch(stderr, -1)
	if m == nil {
		t.Fatalf("no cost in:\n%s", stderr)
	}
	v, err := strconv.ParseFloat(m[len(m)-1][1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
