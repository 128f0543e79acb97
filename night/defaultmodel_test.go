package night_test

import (
	"context"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/night"
	"github.com/nightshift-dev/nightshift/retry"
)

// Regression: a pipeline model that names its provider but no model ran
// the provider's default, and the builder's start event said model "".
// It names the model table's default.
func TestABuilderOnTheProvidersDefaultModelNamesIt(t *testing.T) {
	f := setup(t, `
window: {start: "22:00", end: "06:00"}
models:
  claude: {provider: anthropic}
roles:
  builder: {models: [claude]}
`)
	sc, err := scripted.Parse([]byte("turns:\n  - tool_calls: [{name: write_file, input: {path: out.txt, content: built}}]\n  - text: Built out.txt.\n"))
	if err != nil {
		t.Fatal(err)
	}
	f.add("build out.txt", 5)
	rec := &event.Recorder{}
	if _, err := night.Run(context.Background(), night.Config{Pipeline: f.p, Ledger: f.l,
		Models: map[string]llm.Model{"claude": scripted.New(sc, scripted.Config{Clock: f.clk})},
		Clock:  f.clk, Events: rec, Retry: retry.Policy{Retries: 1}, Idle: time.Hour}); err != nil {
		t.Fatal(err)
	}
	want := models.Default().DefaultModel("anthropic", models.Worker)
	starts := 0
	for _, e := range rec.Events() {
		if e.Type == event.Start {
			starts++
			if e.Data["model"] != want {
				t.Errorf("start event's model %q, want %q", e.Data["model"], want)
			}
		}
	}
	if starts == 0 {
		t.Error("no start event")
	}
	if got := f.p.ModelName("claude"); got != want {
		t.Errorf("ModelName = %q, want %q", got, want)
	}
}
