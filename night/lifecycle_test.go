package night_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/night"
)

// The tests of issue 9: the night's calls go through the run lifecycle,
// so they are retried, paced and rolled back like any other run's.

const oneBuilder = `
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b1], ceiling: 1, no_judge: true}
`

// scriptedModels builds scripted models on the fixture's clock, by name.
func (f *fixture) scriptedModels(scenarios map[string]string) map[string]llm.Model {
	f.t.Helper()
	out := map[string]llm.Model{}
	for name, yaml := range scenarios {
		sc, err := scripted.Parse([]byte(yaml))
		if err != nil {
			f.t.Fatal(err)
		}
		out[name] = scripted.New(sc, scripted.Config{Clock: f.clk, Session: name})
	}
	return out
}

// runNight runs a night on the default builder (the real lifecycle),
// keeping its events.
func (f *fixture) runNight(models map[string]llm.Model) (*night.Summary, *event.Recorder) {
	f.t.Helper()
	ev := &event.Recorder{}
	sum, err := night.Run(context.Background(), night.Config{Pipeline: f.p, Ledger: f.l, Models: models, Clock: f.clk, Events: ev})
	if err != nil {
		f.t.Fatal(err)
	}
	return sum, ev
}

func retryLines(ev *event.Recorder) []string {
	var out []string
	for _, e := range ev.Events() {
		if e.Type == "retry" {
			out = append(out, e.Detail)
		}
	}
	return out
}

// TestOne429InABuilderCallIsRetriedAndTheTaskCompletes: one 429 used to
// send the builder worker out for the whole night (`api-failure: retries
// exhausted after 1 calls`), because the night's builder ran with a zero
// retry policy that never retried a 429 without a Retry-After. It is
// waited out under the default policy, and the task is done.
func TestOne429InABuilderCallIsRetriedAndTheTaskCompletes(t *testing.T) {
	f := setup(t, oneBuilder)
	task := f.add("write the booklet", 9)
	models := f.scriptedModels(map[string]string{"b1": `
turns:
  - attempts:
      - {status: 429}
      - text: Wrote the booklet.
`})
	sum, ev := f.runNight(models)
	if fs := f.failures(sum.Night); len(fs) != 0 {
		t.Fatalf("failures %v; a 429 is wrong timing, not a failure to charge", rules(fs))
	}
	if got, _ := f.l.Task(context.Background(), task.ID); got.State != ledger.Done {
		t.Errorf("task %s, want done", got.State)
	}
	if got := retryLines(ev); len(got) != 1 || !strings.HasPrefix(got[0], "status=429 attempt=1 wait=") {
		t.Errorf("retry events %q, want the one 429 waited out", got)
	}
}

// TestOne429InAProposerOrJudgeCallIsRetried: the proposer's and the
// judge's calls used a zero retry policy too; they now go through the
// lifecycle's call path and wait a 429 or a 529 out.
func TestOne429InAProposerOrJudgeCallIsRetried(t *testing.T) {
	f := setup(t, `
window: {start: "22:00", end: "06:00"}
wip: 1
models:
  idea: {provider: scripted, scenario: unused.yaml}
  judge: {provider: scripted, scenario: unused.yaml}
  b1: {provider: scripted, scenario: unused.yaml}
roles:
  proposer: {models: [idea], ceiling: 1}
  judge: {models: [judge], ceiling: 1}
  builder: {models: [b1], ceiling: 1, no_judge: true}
`)
	models := f.scriptedModels(map[string]string{
		"idea": `
turns:
  - attempts:
      - {status: 429}
      - text: "- a booklet"
`,
		"judge": `
turns:
  - attempts:
      - {status: 529}
      - text: "1: 8"
`,
		"b1": `
turns:
  - text: Built it.
`,
	})
	sum, ev := f.runNight(models)
	if fs := f.failures(sum.Night); len(fs) != 0 {
		t.Fatalf("failures %v, want none", rules(fs))
	}
	if diff := cmp.Diff(map[ledger.Role]int{ledger.Proposer: 1, ledger.Judge: 1, ledger.Builder: 1}, sum.Finished); diff != "" {
		t.Errorf("finished steps (-want +got):\n%s", diff)
	}
	got := retryLines(ev)
	if len(got) != 2 || !strings.HasPrefix(got[0], "status=429 attempt=1") || !strings.HasPrefix(got[1], "status=529 attempt=1") {
		t.Errorf("retry events %q, want the proposer's 429 and the judge's 529", got)
	}
	for _, e := range ev.Events() {
		if e.Type == "retry" && e.Run != sum.Night.Name {
			t.Errorf("retry event of run %q, want the night's %q", e.Run, sum.Night.Name)
		}
	}
}

// TestOnlyExhaustedRetriesReachTheRulesAsAPIDown: a provider that stays
// overloaded through every retry is charged by the rules table as
// api-down (the worker's scope), after the retries, not before them.
func TestOnlyExhaustedRetriesReachTheRulesAsAPIDown(t *testing.T) {
	f := setup(t, oneBuilder)
	f.add("write the booklet", 9)
	models := f.scriptedModels(map[string]string{"b1": `
loop: true
turns:
  - {status: 529}
`})
	sum, ev := f.runNight(models)
	if diff := cmp.Diff([]string{"worker api-down"}, rules(f.failures(sum.Night))); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if got := retryLines(ev); len(got) != 3 {
		t.Errorf("retry events %q, want the default 3 before giving up", got)
	}
}

// TestFailedNightAttemptUndoesWhatRunCommandWrote: the night's builder
// journal took no snapshots, so what run_command wrote stayed after a
// failed attempt, against its own doc comment and docs/night.md. The
// attempt now runs through the lifecycle, which snapshots before every
// danger-class tool.
func TestFailedNightAttemptUndoesWhatRunCommandWrote(t *testing.T) {
	f := setup(t, `
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b1], ceiling: 1, approve: ["run_command=allow"], no_judge: true}
`)
	task := f.add("fetch the book", 9)
	dir := filepath.Join(f.p.Path(f.p.WorkDir), "task-1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	models := f.scriptedModels(map[string]string{"b1": `
loop: true
turns:
  - tool_calls: [{name: run_command, input: {command: "echo book > book.txt && echo changed > notes.md"}}]
  - empty: true
`})
	sum, _ := f.runNight(models)
	if diff := cmp.Diff([]string{"task empty-answer"}, rules(f.failures(sum.Night))); diff != "" {
		t.Fatalf("failures (-want +got):\n%s", diff)
	}
	if got, _ := f.l.Task(context.Background(), task.ID); got.State == ledger.Done {
		t.Fatal("the attempt was taken as done")
	}
	if _, err := os.Stat(filepath.Join(dir, "book.txt")); !os.IsNotExist(err) {
		t.Errorf("book.txt, written by the failed attempt's command, is still there (stat: %v)", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.md")); string(b) != "before\n" {
		t.Errorf("notes.md = %q, want it as it was before the attempt", b)
	}
}
