package night_test

import (
	"context"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/night"
)

// missingKeyPipeline has a proposer and a judge on models of their own and
// a builder on a real provider whose key is read from MAKER_KEY.
const missingKeyPipeline = `
window: {start: "22:00", end: "06:00"}
models:
  idea:  {provider: scripted, scenario: unused.yaml}
  judge: {provider: scripted, scenario: unused.yaml}
  maker: {provider: anthropic, model: claude-sonnet-5-5, api_key_env: MAKER_KEY}
roles:
  proposer: {models: [idea], ceiling: 2}
  judge:    {models: [judge]}
  builder:  {models: [maker]}
`

// TestBuildModelsLeavesOutAModelWithoutItsKey: the night charges the
// missing key; a base URL may name a server that needs none.
func TestBuildModelsLeavesOutAModelWithoutItsKey(t *testing.T) {
	p, err := night.ParsePipeline([]byte(`
window: {start: "22:00", end: "06:00"}
models:
  maker: {provider: anthropic, model: claude-sonnet-5-5, api_key_env: MAKER_KEY}
  local: {provider: openai, model: llama3.1, base_url: "http://127.0.0.1:11434/v1"}
roles:
  builder: {models: [maker, local]}
`))
	if err != nil {
		t.Fatal(err)
	}
	built, err := night.BuildModels(p, nil, func(string) string { return "" })
	if err != nil || built["maker"] != nil || built["local"] == nil {
		t.Fatalf("built %v, %v: want local and not maker", built, err)
	}
	if env := p.Models["maker"].KeyEnv(); env != "MAKER_KEY" {
		t.Errorf("maker's key is read from %q, want MAKER_KEY", env)
	}
}

// TestAMissingKeyIsAConfigFailureBeforeTheFirstStep: the builder's model
// left unbuilt for want of its key (as BuildModels leaves it) is charged
// before the night's first step, naming the variable (issue 17): by the
// default rules the system's, so the night stops with no step taken; a
// pipeline that charges config failures to the worker sees that worker
// sit out: the builder has no other, so the night is cut short, not
// stopped until a person acts.
func TestAMissingKeyIsAConfigFailureBeforeTheFirstStep(t *testing.T) {
	for _, tt := range []struct {
		name, rules string
		end         ledger.EndKind
		scope       ledger.Scope
	}{
		{"by the default rules the night stops before any step", "", ledger.SystemStopped, ledger.SystemScope},
		{"charged to the worker, the worker sits out", "rules: [{failure: config, scope: worker, reason: the worker cannot run}]\n",
			ledger.CutShort, ledger.WorkerScope},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t, missingKeyPipeline+tt.rules)
			// maker is left out, as BuildModels leaves it without its key.
			models := map[string]llm.Model{"idea": proposer(), "judge": judge()}
			sum, err := night.Run(context.Background(), night.Config{Pipeline: f.p, Ledger: f.l, Models: models, Clock: f.clk})
			if err != nil {
				t.Fatal(err)
			}
			fs := f.failures(sum.Night)
			if len(fs) == 0 || fs[0].Rule != "config" || fs[0].Scope != tt.scope || fs[0].Worker != "maker" || fs[0].Step != 0 ||
				!strings.Contains(fs[0].Reason, "models.maker (anthropic) needs its key: MAKER_KEY is not set") {
				t.Fatalf("failures %+v, want first a %s config failure of maker naming MAKER_KEY", fs, tt.scope)
			}
			steps, err := f.l.Steps(context.Background(), sum.Night.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(steps) > 0 {
				t.Errorf("%d steps taken before the night ended, want none", len(steps))
			}
			if sum.Night.End != tt.end {
				t.Errorf("the night ended %s, want %s", sum.Night.End, tt.end)
			}
		})
	}
}
