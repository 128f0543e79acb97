package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// TestRunConfigBoundsEveryCall: a call that does not stream gets the
// whole-call limit, a stream gets none (its silence is watched instead);
// the budget, the time limit, the loop limit and the interrupt rule reach
// the lifecycle, and the scripted model is priced at $0 by the table.
func TestRunConfigBoundsEveryCall(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": "turns: [{text: done}]\n"})
	three, off := 3, -1
	spec := &taskfile.Spec{Task: "x", BaseDir: dir, Spec: runspec.Spec{Limits: runspec.Limits{MaxSteps: 5, Retries: &three, BudgetTokens: 1000, Timeout: taskfile.Duration(time.Hour), LoopLimit: &off}, Verify: runspec.Verify{NoJudge: true}, End: runspec.End{RollbackOnInterrupt: true}}}
	for _, stream := range []bool{false, true} {
		f := &runFlags{}
		spec.Provider, spec.Scenario, spec.Stream = "scripted", filepath.Join(dir, "s.yaml"), stream
		cfg, err := runConfig(f, spec, limitersFor(f.stateDir, &spec.Spec))
		if err != nil {
			t.Fatal(err)
		}
		want := defaultCallTimeout
		if stream {
			want = 0
		}
		if cfg.Retry.CallTimeout != want {
			t.Errorf("stream %v: call timeout %s, want %s", stream, cfg.Retry.CallTimeout, want)
		}
		if s := cfg.Spec; s.BudgetTokens != 1000 || s.Timeout.D() != time.Hour || *s.LoopLimit != -1 || !s.RollbackOnInterrupt {
			t.Errorf("config %+v", cfg)
		}
		if c := cfg.Price(llm.Usage{InputTokens: 1000, OutputTokens: 1000}); !c.Known() {
			t.Errorf("the scripted model's cost is %v, want known ($0)", c)
		}
	}
}

// TestARunCompactsAtTheFallbacksSmallerWindow: the fallback's window in
// the model table reaches the run, which compacts at the smaller of its
// worker's and its fallback's (agent.Fallback.ContextWindow): a history
// the worker could take but its fallback could not would be refused just
// when the fallback is needed.
func TestARunCompactsAtTheFallbacksSmallerWindow(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml": "turns: [{text: done}]\n",
		"models.yaml": `models:
  - {provider: scripted, model: big, context_window: 200000, price: {input: 0, output: 0}}
  - {provider: scripted, model: small, context_window: 8000, price: {input: 0, output: 0}}
`,
	})
	three := 3
	spec := &taskfile.Spec{Task: "x", BaseDir: dir, Spec: runspec.Spec{Limits: runspec.Limits{Retries: &three}, Verify: runspec.Verify{NoJudge: true}, LongRun: runspec.LongRun{ModelsFile: filepath.Join(dir, "models.yaml")}, Model: runspec.Model{FallbackModel: "scripted:small"}}}
	f := &runFlags{}
	spec.Provider, spec.ModelName, spec.Scenario = "scripted", "big", filepath.Join(dir, "s.yaml")
	cfg, err := runConfig(f, spec, limitersFor(f.stateDir, &spec.Spec))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ModelWindow != 200000 || cfg.Fallback == nil || cfg.Fallback.ContextWindow != 8000 {
		t.Errorf("worker's window %d, fallback %+v; want 200000 and 8000", cfg.ModelWindow, cfg.Fallback)
	}
}
