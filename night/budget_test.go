package night_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/night"
)

// Each attempt of the fake builder costs 100 tokens (see done).
func TestTokenBudgets(t *testing.T) {
	t.Run("a worker's own budget spent charges budget to the worker and the role goes on with its next model", func(t *testing.T) {
		f := setup(t, `
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml, budget_tokens: 250}
  b2: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b1, b2]}
`)
		for _, title := range []string{"a", "b", "c", "d", "e"} {
			f.add(title, 5)
		}
		sum := f.run(f.builder(time.Minute, done), nil)
		var workers []string
		for _, c := range f.calls {
			workers = append(workers, c.Worker)
		}
		if diff := cmp.Diff([]string{"b1", "b1", "b1", "b2", "b2"}, workers); diff != "" {
			t.Errorf("workers (-want +got):\n%s", diff)
		}
		fs := f.failures(sum.Night)
		if diff := cmp.Diff([]string{"worker budget"}, rules(fs)); diff != "" {
			t.Fatalf("failures (-want +got):\n%s", diff)
		}
		if fs[0].Worker != "b1" || !strings.Contains(fs[0].Reason, "300 of 250 tokens") {
			t.Errorf("the budget failure is %+v", fs[0])
		}
	})
	t.Run("the night's budget spent ends the night as ceilings reached", func(t *testing.T) {
		f := setup(t, twoBuilders+"budget_tokens: 500\n")
		for _, title := range []string{"a", "b", "c", "d", "e", "f", "g"} {
			f.add(title, 5)
		}
		sum := f.run(f.builder(time.Minute, done), nil)
		if sum.Night.End != ledger.CeilingsReached || sum.Finished[ledger.Builder] != 5 || !strings.Contains(sum.Night.Reason, "token budget of 500") {
			t.Errorf("ended %s after %d steps: %s; want ceilings-reached after 5 steps of 100 tokens", sum.Night.End, sum.Finished[ledger.Builder], sum.Night.Reason)
		}
	})
	t.Run("the proposer's and the judge's tokens count against their own budgets", func(t *testing.T) {
		f := setup(t, `
window: {start: "22:00", end: "06:00"}
wip: 100
models:
  idea: {provider: scripted, scenario: unused.yaml, budget_tokens: 30}
  b: {provider: scripted, scenario: unused.yaml}
roles:
  proposer: {models: [idea]}
  builder: {models: [b], ceiling: 3}
`)
		// Each proposer call costs 15 tokens: the second spends the 30.
		sum := f.run(f.builder(time.Minute, done), map[string]llm.Model{"idea": proposer()})
		if sum.Finished[ledger.Proposer] != 2 {
			t.Errorf("the proposer finished %d steps, want 2 before its budget of 30 ran out", sum.Finished[ledger.Proposer])
		}
		if diff := cmp.Diff([]string{"worker budget"}, rules(f.failures(sum.Night))); diff != "" {
			t.Errorf("failures (-want +got):\n%s", diff)
		}
	})
}

// TestRulesFromThePipeline: the pipeline file's rules change what a failure
// stops, in a real night.
func TestRulesFromThePipeline(t *testing.T) {
	f := setup(t, twoBuilders+`rules:
  - {failure: failed-step, role: builder, scope: worker, reason: "our builders are flaky; take the next model"}
`)
	f.add("a", 9)
	f.add("b", 8)
	sum := f.run(f.builder(time.Minute, func(a night.Assignment) night.Attempt {
		if a.Task.Title == "a" && a.Worker == "b1" {
			return night.Attempt{Outcome: agent.StepLimit, Calls: 20}
		}
		return done(a)
	}), nil)
	fs := f.failures(sum.Night)
	if diff := cmp.Diff([]string{"worker failed-step"}, rules(fs)); diff != "" {
		t.Fatalf("failures (-want +got):\n%s", diff)
	}
	if !strings.Contains(fs[0].Reason, "our builders are flaky") {
		t.Errorf("the failure's reason %q is not the pipeline's", fs[0].Reason)
	}
	var got []call
	got = append(got, f.calls...)
	if diff := cmp.Diff([]call{{"a", "b1"}, {"a", "b2"}, {"b", "b2"}}, got); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
	if task, _ := f.l.Task(context.Background(), 1); task.State != ledger.Done {
		t.Errorf("task a is %s; with only the worker charged, the next model does it tonight", task.State)
	}
}
