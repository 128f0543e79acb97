package batch_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/batch"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// TestAnInterruptedBatchTellsPausedFailedAndNeverStartedApart is issue
// 23's item 4: two paused and two never-started tasks were "failed 4",
// and the never-started ones made a $0 batch's cost unknown.
func TestAnInterruptedBatchTellsPausedFailedAndNeverStartedApart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	run := func(ctx context.Context, _ *taskfile.Spec, _ string) *agent.Result {
		calls++
		if calls == 1 {
			return &agent.Result{Outcome: agent.Budget, Reason: "budget", Cost: models.USD(0)}
		}
		cancel() // the second task's run is where the user presses ^C
		<-ctx.Done()
		return &agent.Result{Outcome: agent.Interrupted, Reason: "interrupted", Cost: models.USD(0)}
	}
	sum, err := batch.Run(ctx, batch.Config{Run: run, WorkDir: t.TempDir(), Parallel: 1}, tasks(4))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Paused != 2 || sum.NotStarted != 2 || sum.Failed != 0 || sum.Done != 0 {
		t.Errorf("paused %d, not started %d, failed %d, done %d; want 2, 2, 0, 0", sum.Paused, sum.NotStarted, sum.Failed, sum.Done)
	}
	var b bytes.Buffer
	if err := sum.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"done 0 · unverified 0 · failed 0 · paused 2 · not started 2 · 4 tasks", "cost $0.0000", "not-started"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "unknown") {
		t.Errorf("summary says unknown: never-started tasks spent nothing:\n%s", out)
	}
}

// Issue 26: a task paused by its provider's outage (its endpoint's
// breaker open past the retry budget) is paused, not failed, and the
// summary tells it apart from one paused by a limit of its own.
func TestASummaryTellsTasksPausedByAnOutageApart(t *testing.T) {
	calls := 0
	run := func(context.Context, *taskfile.Spec, string) *agent.Result {
		calls++
		if calls == 1 {
			return &agent.Result{Outcome: agent.Budget, Reason: "budget", Cost: models.USD(0)}
		}
		return &agent.Result{Outcome: agent.Unavailable, Reason: "the circuit breaker of api.example.com is open", Cost: models.USD(0)}
	}
	sum, err := batch.Run(context.Background(), batch.Config{Run: run, WorkDir: t.TempDir(), Parallel: 1}, tasks(3))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Paused != 3 || sum.Unavailable != 2 || sum.Failed != 0 {
		t.Errorf("paused %d, unavailable %d, failed %d; want 3, 2, 0", sum.Paused, sum.Unavailable, sum.Failed)
	}
	var b bytes.Buffer
	if err := sum.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if want := "failed 0 · paused 3 (unavailable 2) · not started 0 · 3 tasks"; !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, b.String())
	}
}
