package night_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/night"
	"github.com/nightshift-dev/nightshift/statedir"
)

// pricedTable is a models_file for the tests: the scripted model "priced"
// has prices ($ per million tokens), "mystery" has none.
const pricedTable = `
models:
  - provider: scripted
    model: priced
    price: {input: 3, output: 15, cache_write: 3.75, cache_read: 0.3}
    source: the tests
    as_of: 2026-01-01
  - provider: scripted
    model: mystery
    source: the tests, which know no price for it
    as_of: 2026-01-01
`

// withTable writes pricedTable beside the fixture's ledger and names it
// as the pipeline's models_file.
func (f *fixture) withTable() {
	f.t.Helper()
	path := filepath.Join(f.dir, "models.yaml")
	if err := os.WriteFile(path, []byte(pricedTable), 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.p.ModelsFile = path
}

func near(c models.Cost, want float64) bool {
	usd, ok := c.USD()
	return ok && math.Abs(usd-want) < 1e-12
}

// TestEachStepRecordsItsCostAndCacheTokens: the ledger stored only the
// total tokens of a step; the report needs what each step and each night
// cost. A builder attempt's cost and cache tokens come from its run (the
// lifecycle's result), a proposer's or judge's call from its usage and the
// model table (models_file); a model without a price costs unknown, never
// 0, and so does the night.
func TestEachStepRecordsItsCostAndCacheTokens(t *testing.T) {
	f := setup(t, `
window: {start: "22:00", end: "06:00"}
wip: 1
models:
  idea: {provider: scripted, model: priced, scenario: unused.yaml}
  judge: {provider: scripted, model: mystery, scenario: unused.yaml}
  b1: {provider: scripted, model: priced, scenario: unused.yaml}
roles:
  proposer: {models: [idea], ceiling: 1}
  judge: {models: [judge], ceiling: 1}
  builder: {models: [b1], ceiling: 1, no_judge: true}
`)
	f.withTable()
	models := f.scriptedModels(map[string]string{
		"idea": `
turns:
  - text: "- a booklet"
    usage: {input: 1000, output: 100, cache_write: 600}
`,
		"judge": `
turns:
  - text: "1: 8"
    usage: {input: 500, output: 10}
`,
		"b1": `
turns:
  - text: Built it.
    usage: {input: 2000, output: 100, cache_read: 1500}
`,
	})
	sum, _ := f.runNight(models)
	steps, err := f.l.Steps(context.Background(), sum.Night.ID)
	if err != nil || len(steps) != 3 {
		t.Fatalf("steps %+v, %v", steps, err)
	}
	// 400 uncached input at $3, 600 written to the cache at $3.75, 100
	// output at $15.
	idea, judge, build := steps[0], steps[1], steps[2]
	if idea.Role != ledger.Proposer || idea.Tokens != 1100 || idea.CacheWriteTokens != 600 || !near(idea.Cost, 0.00495) {
		t.Errorf("the proposer's step: %+v", idea)
	}
	if judge.Role != ledger.Judge || judge.Tokens != 510 || judge.Cost.Known() {
		t.Errorf("the judge's step: %+v; want its cost unknown (no price for mystery)", judge)
	}
	// 500 uncached input at $3, 1500 read from the cache at $0.30, 100
	// output at $15.
	if build.Role != ledger.Builder || build.Tokens != 2100 || build.CacheReadTokens != 1500 || !near(build.Cost, 0.00345) {
		t.Errorf("the builder's step: %+v", build)
	}
	sp := sum.Night.Spend
	if sp.Tokens != 3710 || sp.CacheWriteTokens != 600 || sp.CacheReadTokens != 1500 || sp.Cost.Known() || sp.Unpriced != 1 ||
		math.Abs(sp.KnownUSD-0.0084) > 1e-12 {
		t.Errorf("the night's spend %+v; want 3710 tokens, $0.0084 known, the judge's step unpriced", sp)
	}
}

// TestAnAttemptStoppedByItsOwnBudgetIsAFailedStepOfItsTask (issue 14): a
// builder attempt that reaches roles.builder's budget_tokens or budget_usd
// ends budget, which the night records as a failed step of the task
// (attempt-budget), never as the worker's night budget: the worker takes
// the next task. Its changes are rolled back at once, its journal not left
// pending.
func TestAnAttemptStoppedByItsOwnBudgetIsAFailedStepOfItsTask(t *testing.T) {
	for _, limit := range []string{"budget_tokens: 1500", "budget_usd: 0.007"} {
		t.Run(limit, func(t *testing.T) {
			f := setup(t, `
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, model: priced, scenario: unused.yaml}
roles:
  builder: {models: [b1], ceiling: 2, no_judge: true, `+limit+`}
`)
			f.withTable()
			big := f.add("the big booklet", 9)
			small := f.add("a small note", 5)
			// The first call (1400 input, 200 output: 1600 tokens, $0.0072)
			// spends the attempt's budget; the next one is not made.
			models := f.scriptedModels(map[string]string{"b1": `
turns:
  - cases:
      - when: {contains: "the big booklet"}
        tool_calls: [{name: write_file, input: {path: draft.md, content: "half a booklet"}}]
        usage: {input: 1400, output: 200}
      - text: Wrote the note.
        usage: {input: 10, output: 5}
  - text: Finished the booklet.
    usage: {input: 100, output: 50}
`})
			sum, ev := f.runNight(models)
			fs := f.failures(sum.Night)
			if diff := cmp.Diff([]string{"task attempt-budget"}, rules(fs)); diff != "" {
				t.Fatalf("failures (-want +got):\n%s", diff)
			}
			if fs[0].Task != big.ID || fs[0].Worker != "b1" {
				t.Errorf("the failure %+v, want the big booklet's on b1", fs[0])
			}
			steps, _ := f.l.Steps(context.Background(), sum.Night.ID)
			if len(steps) != 2 || steps[0].State != ledger.StepFailed || steps[0].Outcome != string(agent.Budget) ||
				steps[0].Tokens != 1600 || !near(steps[0].Cost, 0.0072) || steps[0].Pending {
				t.Fatalf("steps %+v; want the big booklet's failed on its budget after 1600 tokens, then the note", steps)
			}
			if got, _ := f.l.Task(context.Background(), small.ID); got.State != ledger.Done {
				t.Errorf("the small note is %s: the worker was not out, it should have taken it", got.State)
			}
			if got, _ := f.l.Task(context.Background(), big.ID); got.State != ledger.Queued {
				t.Errorf("the big booklet is %s, want queued (skipped tonight)", got.State)
			}
			stopped := false
			for _, e := range ev.Events() {
				stopped = stopped || e.Type == "budget"
			}
			if !stopped {
				t.Error("no budget event: the attempt was not stopped by its budget")
			}
			dir := filepath.Join(f.p.Path(f.p.WorkDir), "task-1")
			if _, err := os.Stat(filepath.Join(dir, "draft.md")); !os.IsNotExist(err) {
				t.Errorf("draft.md, written by the attempt its budget stopped, is still there (stat: %v)", err)
			}
			base, _ := statedir.Base("")
			state, err := statedir.WorkspaceDir(base, dir)
			if err != nil {
				t.Fatal(err)
			}
			if pending, err := journal.Pending(state); err != nil || len(pending) != 0 {
				t.Errorf("journals pending %v (%v); want none: nothing resumes a failed step", pending, err)
			}
		})
	}
}

// TestTheNightsBudgetInDollars: a top-level budget_usd ends the night as
// ceilings reached once its steps, all processes together, cost it, as
// budget_tokens does, never charged to a worker; a step whose cost is
// unknown ends it too, for the budget can no longer be kept; and a model
// the table has no price for makes the pipeline bad before the night runs.
func TestTheNightsBudgetInDollars(t *testing.T) {
	costs := func(c models.Cost) func(night.Assignment) night.Attempt {
		return func(night.Assignment) night.Attempt {
			return night.Attempt{Outcome: agent.Done, Answer: "built it", Tokens: 100, Cost: c}
		}
	}
	t.Run("spent, it ends the night as ceilings reached", func(t *testing.T) {
		f := setup(t, twoBuilders+"budget_usd: 1\n")
		for _, title := range []string{"a", "b", "c", "d", "e"} {
			f.add(title, 5)
		}
		sum := f.run(f.builder(time.Minute, costs(models.USD(0.4))), nil)
		if sum.Night.End != ledger.CeilingsReached || sum.Finished[ledger.Builder] != 3 || !strings.Contains(sum.Night.Reason, "the night's budget of $1.00 is spent ($1.2000)") {
			t.Errorf("ended %s after %d steps: %s; want ceilings-reached after 3 steps of $0.40", sum.Night.End, sum.Finished[ledger.Builder], sum.Night.Reason)
		}
		if fs := f.failures(sum.Night); len(fs) != 0 {
			t.Errorf("failures %v: the night's budget is charged to nobody", rules(fs))
		}
		if !near(sum.Night.Spend.Cost, 1.2) {
			t.Errorf("the night cost %s, want $1.20", sum.Night.Spend.Cost)
		}
	})
	t.Run("a step of unknown cost ends it: the budget can no longer be kept", func(t *testing.T) {
		f := setup(t, twoBuilders+"budget_usd: 1\n")
		f.add("a", 5)
		f.add("b", 5)
		sum := f.run(f.builder(time.Minute, costs(models.Unknown)), nil)
		if sum.Night.End != ledger.CeilingsReached || sum.Finished[ledger.Builder] != 1 || !strings.Contains(sum.Night.Reason, "cannot be kept: the cost of 1 step(s) is unknown") {
			t.Errorf("ended %s after %d steps: %s", sum.Night.End, sum.Finished[ledger.Builder], sum.Night.Reason)
		}
	})
	t.Run("a model without a price is a bad pipeline", func(t *testing.T) {
		for _, budget := range []string{"budget_usd: 1\nroles: {builder: {models: [b1]}}", "roles: {builder: {models: [b1], budget_usd: 0.5}}"} {
			dir := t.TempDir()
			path := filepath.Join(dir, "pipeline.yaml")
			pipeline := "window: {start: \"22:00\", end: \"06:00\"}\nmodels: {b1: {provider: anthropic, model: claude-imaginary-1}}\n" + budget + "\n"
			if err := os.WriteFile(path, []byte(pipeline), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := night.LoadPipeline(path)
			if !errors.Is(err, night.ErrBadPipeline) || !strings.Contains(err.Error(), "no price for models.b1 (anthropic claude-imaginary-1)") {
				t.Errorf("%s: LoadPipeline: %v; want a bad pipeline naming the model", budget, err)
			}
			p, err := night.ParsePipeline([]byte(pipeline))
			if err != nil {
				t.Fatal(err)
			}
			l, err := ledger.Open(context.Background(), filepath.Join(dir, "n.db"), ledger.Config{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = night.Run(context.Background(), night.Config{Pipeline: p, Ledger: l, Builder: night.BuilderFunc(func(_ context.Context, a night.Assignment) night.Attempt { return done(a) })})
			l.Close(context.Background()) //nolint:errcheck // test
			if !errors.Is(err, night.ErrBadPipeline) {
				t.Errorf("%s: Run: %v; want a bad pipeline", budget, err)
			}
		}
	})
	t.Run("models_file prices a model the embedded table does not know", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte(`
models:
  - {provider: anthropic, model: claude-imaginary-1, price: {input: 1, output: 2}, source: a test, as_of: 2026-01-01}
`), 0o644); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "pipeline.yaml")
		if err := os.WriteFile(path, []byte(`window: {start: "22:00", end: "06:00"}
budget_usd: 1
models_file: prices.yaml
models: {b1: {provider: anthropic, model: claude-imaginary-1}}
roles: {builder: {models: [b1]}}
`), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := night.LoadPipeline(path); err != nil {
			t.Errorf("LoadPipeline: %v; want the models_file beside the pipeline read", err)
		}
	})
}

// TestAContinuedAttemptRecordsOnlyWhatItSpentAfterItsCheckpoint: an
// interrupted attempt was recorded with what it had spent; its
// continuation, a run resumed from its checkpoint, reports the whole run's
// usage, so the night counted the first part twice, against its budgets.
// The continuation's step now records what it spent itself.
func TestAContinuedAttemptRecordsOnlyWhatItSpentAfterItsCheckpoint(t *testing.T) {
	f := setup(t, `
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, model: priced, scenario: unused.yaml}
roles:
  builder: {models: [b1], ceiling: 1, no_judge: true}
`)
	f.withTable()
	f.add("a booklet", 9)
	// Two steps; the third call is where the night is interrupted: it
	// stops the night and answers once the stop has reached it.
	first := f.scriptedModels(map[string]string{"b1": `
turns:
  - tool_calls: [{name: read_file, input: {path: progress.md}}]
    usage: {input: 100, output: 10}
  - tool_calls: [{name: write_file, input: {path: progress.md, content: "started"}}]
    usage: {input: 200, output: 20}
`})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	scripted := first["b1"]
	first["b1"] = llm.ModelFunc(func(cctx context.Context, req *llm.Request) (*llm.Response, error) {
		if calls++; calls < 3 {
			return scripted.Generate(cctx, req)
		}
		cancel()
		<-cctx.Done()
		return nil, cctx.Err()
	})
	if _, err := night.Run(ctx, night.Config{Pipeline: f.p, Ledger: f.l, Models: first, Clock: f.clk}); !errors.Is(err, context.Canceled) {
		t.Fatalf("the interrupted night: %v", err)
	}
	next := f.scriptedModels(map[string]string{"b1": `
turns:
  - text: "unused: the conversation holds two turns already"
  - text: "unused"
  - text: Continued and finished.
    usage: {input: 300, output: 30}
`})
	sum, _ := f.runNight(next)
	steps, _ := f.l.Steps(context.Background(), sum.Night.ID)
	if len(steps) != 2 || steps[0].State != ledger.Interrupted || steps[1].Continues != steps[0].ID || steps[1].Answer != "Continued and finished." {
		t.Fatalf("steps %+v; want the interrupted attempt, then its continuation", steps)
	}
	// At $3 and $15 per million, 300 input and 30 output tokens cost
	// $0.00135, before the interrupt and after it.
	if steps[0].Tokens != 330 || !near(steps[0].Cost, 0.00135) {
		t.Errorf("the interrupted step spent %d tokens, %s; want 330, $0.00135", steps[0].Tokens, steps[0].Cost)
	}
	if steps[1].Tokens != 330 || !near(steps[1].Cost, 0.00135) {
		t.Errorf("the continuation spent %d tokens, %s; want only its own 330, $0.00135", steps[1].Tokens, steps[1].Cost)
	}
	if sum.Night.Spend.Tokens != 660 {
		t.Errorf("the night spent %d tokens, want 660", sum.Night.Spend.Tokens)
	}
}

// TestAnAttemptPastItsTimeLimitIsAFailedStepOfItsTask: with
// roles.builder.timeout an attempt whose model takes longer ends timeout,
// a failed step of the task (attempt-timeout), rolled back at once.
func TestAnAttemptPastItsTimeLimitIsAFailedStepOfItsTask(t *testing.T) {
	f := setup(t, `
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b1], ceiling: 1, timeout: 30m, no_judge: true}
`)
	f.add("a slow booklet", 9)
	models := f.scriptedModels(map[string]string{"b1": `
turns:
  - tool_calls: [{name: write_file, input: {path: draft.md, content: "half"}}]
  - {delay: 1h, text: "Finished, an hour later."}
`})
	sum, _ := f.runNight(models)
	if diff := cmp.Diff([]string{"task attempt-timeout"}, rules(f.failures(sum.Night))); diff != "" {
		t.Fatalf("failures (-want +got):\n%s", diff)
	}
	steps, _ := f.l.Steps(context.Background(), sum.Night.ID)
	if len(steps) != 1 || steps[0].Outcome != string(agent.Timeout) || steps[0].Pending {
		t.Errorf("steps %+v; want one ended timeout, not pending", steps)
	}
	if _, err := os.Stat(filepath.Join(f.p.Path(f.p.WorkDir), "task-1", "draft.md")); !os.IsNotExist(err) {
		t.Errorf("draft.md is still there (stat: %v)", err)
	}
}
