package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestTaskShowAndDrop (issue 30): the report sends a person to `task show`
// for an unverified result, and to `task drop` to give a task up. show
// prints the latest attempt's verdict and the diff of what it changed
// (rolled back, kept in its run record, found through the state
// directory the night recorded), in text and JSON; drop gives the task up
// for good, and the report then lists it as given up, not as a result to
// look at.
func TestTaskShowAndDrop(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"pipeline.yaml": `window: {start: "00:00", end: "23:59"}
models:
  maker: {provider: scripted, scenario: maker.yaml}
roles:
  builder: {models: [maker], ceiling: 1, prompt: "Make the thing."}
`,
		"maker.yaml": `loop: true
turns:
  - tool_calls: [{name: write_file, input: {path: result.md, content: "Half made.\n"}}]
  - empty: true
`,
	})
	db, state := filepath.Join(dir, "night.db"), filepath.Join(dir, "state")
	if res := runCLI(t, "task", "add", "a poster of the planets", "--db", db); res.code != 0 {
		t.Fatalf("task add: %d %s", res.code, res.stderr)
	}
	if res := runCLI(t, "night", "--pipeline", filepath.Join(dir, "pipeline.yaml"), "--db", db, "--state-dir", state); res.code != 0 {
		t.Fatalf("night: exit %d\n%s", res.code, res.stderr)
	}
	rep := runCLI(t, "report", "--db", db)
	if !strings.Contains(rep.stdout, "unverified · task 1 \"a poster of the planets\"") || !strings.Contains(rep.stdout, "       nightshift task show 1 --db "+db+"\n") {
		t.Fatalf("the report does not send a person to task show:\n%s", rep.stdout)
	}

	show := runCLI(t, "task", "show", "1", "--db", db)
	for _, want := range []string{`task 1 "a poster of the planets"`, "attempts (1):", "latest attempt: step 1, night ",
		"  verdict: unverified: failed not-empty: ", "  charged: task empty-answer: ", "  changes: rolled back: ",
		"  run record: " + state, "+++ b/result.md\n", "+Half made.\n"} {
		if show.code != 0 || !strings.Contains(show.stdout, want) {
			t.Errorf("task show (exit %d) lacks %q:\n%s%s", show.code, want, show.stdout, show.stderr)
		}
	}
	js := runCLI(t, "task", "show", "1", "--db", db, "--json")
	var s struct {
		Task   struct{ Title string } `json:"task"`
		Latest struct {
			Verdict string `json:"verdict"`
			Patch   string `json:"patch"`
		} `json:"latest_attempt"`
		Failures []any `json:"failures"`
		Parked   []any `json:"parked"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &s); err != nil || !strings.Contains(s.Latest.Patch, "+Half made.") ||
		!strings.HasPrefix(s.Latest.Verdict, "unverified") || len(s.Failures) != 1 || s.Parked == nil {
		t.Errorf("task show --json (%v): %+v\n%s", err, s, js.stdout)
	}
	// Another state directory holds no record of it, and says so.
	other := runCLI(t, "task", "show", "1", "--db", db, "--state-dir", filepath.Join(dir, "elsewhere"))
	if other.code != 0 || !strings.Contains(other.stdout, "  changes: no run record of it in ") {
		t.Errorf("task show with another state directory (exit %d):\n%s", other.code, other.stdout)
	}

	drop := runCLI(t, "task", "drop", "1", "--db", db, "--reason", "the planets can wait")
	if drop.code != 0 || drop.stdout != "task 1 \"a poster of the planets\" dropped (it was queued): no night takes it again\n" {
		t.Errorf("task drop: exit %d %q %s", drop.code, drop.stdout, drop.stderr)
	}
	if list := runCLI(t, "task", "list", "--db", db); !strings.Contains(list.stdout, "1   dropped") {
		t.Errorf("task list after the drop:\n%s", list.stdout)
	}
	rep = runCLI(t, "report", "--db", db)
	if !strings.Contains(rep.stdout, "Nothing needs a person.") || !strings.Contains(rep.stdout, "  given up: task 1 (it was queued) at ") ||
		!strings.Contains(rep.stdout, ": the planets can wait\n") || !strings.Contains(rep.stdout, "Tasks given up: 1") {
		t.Errorf("the report after the drop:\n%s", rep.stdout)
	}
	if show := runCLI(t, "task", "show", "1", "--db", db); !strings.Contains(show.stdout, "dropped · unscored") || !strings.Contains(show.stdout, "  given up ") {
		t.Errorf("task show after the drop:\n%s", show.stdout)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"task", "drop", "1", "--db", db}, "task 1 is dropped already"},
		{[]string{"task", "drop", "9", "--db", db}, "no task 9"},
		{[]string{"task", "show", "9", "--db", db}, "no task 9"},
		{[]string{"task", "drop", "--db", db}, "task drop takes one task ID"},
		{[]string{"task", "show", "x1", "--db", db}, "not a task ID"},
	} {
		if res := runCLI(t, tt.args...); res.code != 2 || !strings.Contains(res.stderr, tt.want) {
			t.Errorf("%v: exit %d %q; want 2 saying %q", tt.args, res.code, res.stderr, tt.want)
		}
	}
}
