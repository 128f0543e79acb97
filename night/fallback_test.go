package night_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/night"
	"github.com/nightshift-dev/nightshift/retry"
)

const fallbackPipeline = `
window: {start: "22:00", end: "06:00"}
models:
  big: {provider: scripted, scenario: unused.yaml, model: big}
  small: {provider: scripted, scenario: unused.yaml, model: small}
roles:
  builder: {models: [big], fallback: small, no_judge: true}
`

// TestANightStepRescuedByTheFallbackRecordsNoFailure: the builder's
// model is overloaded past its retries; the fallback finishes the step,
// and the night charges nothing to anyone.
func TestANightStepRescuedByTheFallbackRecordsNoFailure(t *testing.T) {
	f := setup(t, fallbackPipeline)
	model := func(yaml string) llm.Model {
		sc, err := scripted.Parse([]byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		return scripted.New(sc, scripted.Config{Clock: f.clk})
	}
	models := map[string]llm.Model{
		"big":   model(`{loop: true, turns: [{status: 529}]}`),
		"small": model("turns:\n  - tool_calls: [{name: write_file, input: {path: out.txt, content: built}}]\n  - text: Built out.txt.\n"),
	}
	task := f.add("build out.txt", 5)
	rec := &event.Recorder{}
	sum, err := night.Run(context.Background(), night.Config{Pipeline: f.p, Ledger: f.l, Models: models, Clock: f.clk,
		Events: rec, Retry: retry.Policy{Retries: 1}, Idle: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := f.l.Task(context.Background(), task.ID)
	if got.State != ledger.Done || sum.Finished[ledger.Builder] != 1 {
		t.Errorf("task %s, builder steps %d", got.State, sum.Finished[ledger.Builder])
	}
	if fs := f.failures(sum.Night); len(fs) != 0 {
		t.Errorf("failures recorded: %v", rules(fs))
	}
	n := 0
	for _, e := range rec.Events() {
		if e.Type == "fallback" {
			n++
			if e.Data["from"] != "big" || e.Data["to"] != "small" || e.Data["reason"] != "exhausted" {
				t.Errorf("fallback event %v", e.Data)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d fallback events, want 1", n)
	}
}

// TestAPipelineFallbackOnWithoutAFallbackIsAnError is a regression
// test: roles.builder.fallback_on: quota with no fallback was accepted
// and did nothing, where --fallback-on without --fallback-model is a
// usage error.
func TestAPipelineFallbackOnWithoutAFallbackIsAnError(t *testing.T) {
	p := "window: {start: \"22:00\", end: \"06:00\"}\nmodels: {b: {provider: scripted, scenario: s.yaml}}\nroles: {builder: {models: [b], fallback_on: quota}}\n"
	_, err := night.ParsePipeline([]byte(p))
	if err == nil || !strings.Contains(err.Error(), "roles.builder.fallback") {
		t.Errorf("got %v, want an error naming roles.builder.fallback", err)
	}
}

// TestAPipelineFallbackThatIsTheRolesOnlyModelIsAnError is a regression
// test: roles.builder {models: [b], fallback: b} was accepted, and the
// fallback was never used (a model is not its own fallback).
func TestAPipelineFallbackThatIsTheRolesOnlyModelIsAnError(t *testing.T) {
	p := "window: {start: \"22:00\", end: \"06:00\"}\nmodels: {b: {provider: scripted, scenario: s.yaml}}\nroles: {builder: {models: [b], fallback: b}}\n"
	_, err := night.ParsePipeline([]byte(p))
	if err == nil || !strings.Contains(err.Error(), "roles.builder.fallback") {
		t.Errorf("got %v, want an error naming roles.builder.fallback", err)
	}
	// One of two models is a fallback for the other.
	p = "window: {start: \"22:00\", end: \"06:00\"}\nmodels: {a: {provider: scripted, scenario: s.yaml}, b: {provider: scripted, scenario: s.yaml}}\nroles: {builder: {models: [a, b], fallback: b}}\n"
	if _, err := night.ParsePipeline([]byte(p)); err != nil {
		t.Errorf("models [a, b], fallback b: %v", err)
	}
}

func TestAPipelineFallbackMustBeAModel(t *testing.T) {
	for _, p := range []string{
		"window: {start: \"22:00\", end: \"06:00\"}\nmodels: {b: {provider: scripted, scenario: s.yaml}}\nroles: {builder: {models: [b], fallback: nope}}\n",
		"window: {start: \"22:00\", end: \"06:00\"}\nmodels: {b: {provider: scripted, scenario: s.yaml}}\nroles: {builder: {models: [b], fallback: b, fallback_on: auth}}\n",
	} {
		if _, err := night.ParsePipeline([]byte(p)); err == nil {
			t.Errorf("accepted:\n%s", p)
		}
	}
}

// TestAPrimaryThatFailedRestsAcrossTheNightsSteps is a regression test:
// each builder step (and each proposer or judge call) made a new
// fallback, and with it a new rest, so the builder's model that had just
// run out of retries on an overload was called again, through all its
// retries, by the very next step. The primary rests for the night's
// calls, all of them, until its Retry-After (or 60 s) is over.
func TestAPrimaryThatFailedRestsAcrossTheNightsSteps(t *testing.T) {
	f := setup(t, fallbackPipeline)
	var mu sync.Mutex
	primaryCalls := 0
	sc, err := scripted.Parse([]byte(`{loop: true, turns: [{status: 529}]}`))
	if err != nil {
		t.Fatal(err)
	}
	big := scripted.New(sc, scripted.Config{Clock: f.clk})
	small, err := scripted.Parse([]byte("turns:\n  - tool_calls: [{name: write_file, input: {path: out.txt, content: built}}]\n  - text: Built out.txt.\n"))
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]llm.Model{
		"big": llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
			mu.Lock()
			primaryCalls++
			mu.Unlock()
			return big.Generate(ctx, req)
		}),
		"small": scripted.New(small, scripted.Config{Clock: f.clk}),
	}
	f.add("build out.txt", 5)
	f.add("build out.txt again", 4)
	rec := &event.Recorder{}
	sum, err := night.Run(context.Background(), night.Config{Pipeline: f.p, Ledger: f.l, Models: models, Clock: f.clk,
		Events: rec, Retry: retry.Policy{Retries: 1}, Idle: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Finished[ledger.Builder] != 2 {
		t.Fatalf("builder steps finished: %d, want 2", sum.Finished[ledger.Builder])
	}
	if primaryCalls != 2 {
		t.Errorf("the primary was called %d times, want 2 (one call and one retry; then it rests for the second step too)", primaryCalls)
	}
	if n := len(eventsOfType(rec, "fallback")); n != 1 {
		t.Errorf("%d fallback events, want 1", n)
	}
}

func eventsOfType(rec *event.Recorder, typ string) []event.Event {
	var out []event.Event
	for _, e := range rec.Events() {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// TestABuilderAttemptCompactsInTheModelsWindow is a regression test: a
// builder attempt was given no context window (the run command takes
// one from the model table; the night's attempts did not), so a long
// attempt never compacted, the headless agent's complaint compaction is
// for. An attempt compacts at the window the model table gives its
// model (models_file here).
func TestABuilderAttemptCompactsInTheModelsWindow(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "models.yaml")
	if err := os.WriteFile(table, []byte("models:\n  - {provider: scripted, model: big, roles: [worker], context_window: 4000, price: {input: 0, output: 0}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := setup(t, fallbackPipeline+"models_file: "+table+"\n")
	if err := os.MkdirAll(filepath.Join(f.p.WorkDir, "task-1"), 0o755); err != nil {
		t.Fatal(err)
	}
	sc, err := scripted.Parse([]byte(`
loop: true
scripts:
  - name: summary
    when: {contains: "about to outgrow", in: last}
    turns: [{text: "SUMMARY: out.txt was listed many times."}]
  - name: after
    when: {contains: "were replaced by a summary"}
    turns: [{tool_calls: [{name: write_file, input: {path: out.txt, content: built}}]}, {text: Built out.txt.}]
  - name: main
    turns:
` + pads(12) + `
`))
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]llm.Model{"big": scripted.New(sc, scripted.Config{Clock: f.clk})}
	f.p.Roles[ledger.Builder].MaxSteps = 40
	f.add("build out.txt", 5)
	rec := &event.Recorder{}
	if _, err := night.Run(context.Background(), night.Config{Pipeline: f.p, Ledger: f.l, Models: models, Clock: f.clk,
		Events: rec, Idle: time.Hour}); err != nil {
		t.Fatal(err)
	}
	compacts := eventsOfType(rec, "compact")
	if len(compacts) == 0 {
		var lines []string
		for _, e := range rec.Events() {
			lines = append(lines, e.Type+" "+e.Detail)
		}
		t.Fatalf("the builder's attempt never compacted:\n%s", strings.Join(lines, "\n"))
	}
	if w := compacts[0].Data["window"]; fmt.Sprint(w) != "4000" {
		t.Errorf("compacted at a window of %v, want the table's 4000", w)
	}
}

// pads is n scenario turns, each writing a file of its own with a
// kilobyte and a half of padding.
func pads(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "      - tool_calls: [{name: write_file, input: {path: pad%d.txt, content: %q}}]\n", i, strings.Repeat("padding ", 200))
	}
	return b.String()
}

// A builder's fallback carries its own window from the model table, so
// that an attempt compacts at the smaller one (agent.Fallback).
func TestAPipelineFallbackCarriesItsWindow(t *testing.T) {
	p, err := night.ParsePipeline([]byte(`
window: {start: "22:00", end: "06:00"}
models:
  big: {provider: anthropic, model: claude-sonnet-5-5}
  small: {provider: anthropic, model: claude-haiku-4-5}
roles:
  builder: {models: [big], fallback: small, no_judge: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	stub := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) { return nil, context.Canceled })
	fb := p.Fallback(ledger.Builder, "big", map[string]llm.Model{"big": stub, "small": stub}, nil)
	if fb == nil || fb.ContextWindow != p.ContextWindow("small") || fb.ContextWindow <= 0 {
		t.Fatalf("fallback %+v, want the window of small (%d)", fb, p.ContextWindow("small"))
	}
}

// Regression (issue 15 review): a budget with a fraction was read with the
// fraction dropped; it is an error naming the key.
func TestAPipelineFractionForAnIntegerKeyIsAnError(t *testing.T) {
	_, err := night.ParsePipeline([]byte("window: {start: \"22:00\", end: \"06:00\"}\nmodels: {b: {provider: scripted, scenario: s.yaml}}\nroles: {builder: {models: [b], budget_tokens: 2.5}}\n"))
	if err == nil || !strings.Contains(err.Error(), "roles.builder.budget_tokens: 2.5 is not a whole number") {
		t.Errorf("got %v", err)
	}
}
