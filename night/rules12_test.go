package night_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/night"
)

// TestWIPCountsOnlyTasksABuilderCanTake: with wip 2 and both queued tasks
// at an escalation level whose only model is out on quota, the proposer
// took no step all night while m1 was free, and the night ended early
// "nothing takeable: 2 queued". Those tasks hold no place under the cap:
// the proposer goes on, and m1 builds its ideas.
func TestWIPCountsOnlyTasksABuilderCanTake(t *testing.T) {
	f := setup(t, `
window: {start: "22:00", end: "06:00"}
wip: 2
models:
  idea: {provider: scripted, scenario: unused.yaml}
  m1: {provider: scripted, scenario: unused.yaml}
  m2: {provider: scripted, scenario: unused.yaml}
roles:
  proposer: {models: [idea], ceiling: 3}
  builder: {models: [m1, m2]}
`)
	ctx := context.Background()
	// Both tasks failed on m1 once by hand and once on an earlier night:
	// they are m2's now.
	for _, title := range []string{"escalated a", "escalated b"} {
		task := f.add(title, 9)
		if _, err := f.l.FailTask(ctx, task.ID, 0, "failed on m1 before", dusk); err != nil {
			t.Fatal(err)
		}
	}
	earlier := *f.p
	earlier.Roles = map[ledger.Role]*night.RoleSpec{ledger.Builder: f.p.Roles[ledger.Builder]}
	if _, err := night.Run(ctx, night.Config{Pipeline: &earlier, Ledger: f.l, Clock: f.clk, Name: "earlier",
		Builder: night.BuilderFunc(func(context.Context, night.Assignment) night.Attempt {
			return night.Attempt{Outcome: agent.Unverified, Reason: "half done", Calls: 3}
		})}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{1, 2} {
		if got, _ := f.l.Task(ctx, id); got.Level != 1 {
			t.Fatalf("task %d is at level %d after failing twice on m1, want 1", id, got.Level)
		}
	}
	f.clk.Advance(24 * time.Hour)
	f.calls = nil
	quota := night.Attempt{Outcome: agent.APIFailure, Err: &llm.Error{Class: llm.Quota, Status: 429}}
	sum := f.run(f.builder(time.Minute, func(a night.Assignment) night.Attempt {
		if a.Worker == "m2" {
			return quota
		}
		return done(a)
	}), map[string]llm.Model{"idea": proposer()})
	if sum.Finished[ledger.Proposer] != 3 {
		t.Errorf("the proposer finished %d steps, want its ceiling of 3: the tasks only m2 could take do not count toward the WIP cap", sum.Finished[ledger.Proposer])
	}
	var m1 int
	for _, c := range f.calls {
		if c.Worker == "m1" {
			m1++
		}
	}
	if m1 != 3 {
		t.Errorf("m1 built %d of the proposer's ideas, want 3 (calls %v)", m1, f.calls)
	}
}

// TestCallFailuresNeverMakeASecondFailure: two lost proposer calls sent the
// proposer out for the night ("worker second-failure … (tasks 0 and 0)"),
// though the rules charge its failures to the call. A second failure needs
// two different tasks; the proposer's and the judge's calls have none.
func TestCallFailuresNeverMakeASecondFailure(t *testing.T) {
	f := setup(t, `
window: {start: "22:00", end: "06:00"}
wip: 5
models:
  idea: {provider: scripted, scenario: unused.yaml}
  b: {provider: scripted, scenario: unused.yaml}
roles:
  proposer: {models: [idea], ceiling: 4}
  builder: {models: [b]}
`)
	calls := 0
	flaky := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		calls++
		if calls <= 2 {
			return &llm.Response{StopReason: llm.EndTurn}, nil // lost: an empty answer
		}
		return &llm.Response{Content: []llm.Block{llm.Text(fmt.Sprint("- idea ", calls))}, StopReason: llm.EndTurn}, nil
	})
	sum := f.run(f.builder(time.Minute, done), map[string]llm.Model{"idea": flaky})
	if diff := cmp.Diff([]string{"call empty-answer", "call empty-answer"}, rules(f.failures(sum.Night))); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if sum.Finished[ledger.Proposer] != 4 {
		t.Errorf("the proposer finished %d steps, want its ceiling of 4: lost calls do not send it out", sum.Finished[ledger.Proposer])
	}
}
