package night_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/ledger/ledgertest"
	"github.com/nightshift-dev/nightshift/night"
)

// TestASecondFailureRecordedAfterEveryOtherTaskIsDone is the run in which
// TestProcessesShareOneSecondFailureRule once failed under load ("no step
// on m2: m1 was never sent out"), made deterministic. Two steps on m1 fail,
// on tasks A and B; the step on B is recorded only after the other chain
// has done every other task on m1, which was not out yet (the process
// recording B was descheduled, then waited for the night's row while the
// other process took it again and again). The night is right: one
// second-failure, recorded with B, sends m1 out; no step on m1 begins
// after it; nothing is left for m2, and the night ends out of work (not
// cut short: m2 is still in). The test had assumed both failures would be
// recorded before any other step ended; it now holds each process's
// second attempt until every process has recorded its first.
func TestASecondFailureRecordedAfterEveryOtherTaskIsDone(t *testing.T) {
	backends := map[string]func(t *testing.T) string{
		"sqlite": func(t *testing.T) string { return filepath.Join(t.TempDir(), "night.db") },
	}
	if base := os.Getenv("NIGHTSHIFT_TEST_PG"); base != "" {
		backends["postgres"] = func(t *testing.T) string { return ledgertest.FreshPostgres(t, base) }
	}
	for name, dsn := range backends {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			p, err := night.ParsePipeline([]byte(`
window: {start: "22:00", end: "06:00"}
models:
  m1: {provider: scripted, scenario: unused.yaml}
  m2: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [m1, m2], ceiling: 100}
`))
			if err != nil {
				t.Fatal(err)
			}
			p.WorkDir = filepath.Join(t.TempDir(), "work")
			// Two chains in one process stand for the two processes.
			l, err := ledger.Open(ctx, dsn(t), ledger.Config{Concurrency: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close(ctx) //nolint:errcheck // test cleanup
			clk := clock.NewFake(dusk)
			ids := map[string]int64{}
			for i, title := range []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J"} {
				score := float64(10 - i)
				task, err := l.AddTask(ctx, ledger.NewTask{Title: title, Score: &score}, dusk)
				if err != nil {
					t.Fatal(err)
				}
				ids[title] = task.ID
			}
			// B's attempt ends once the 8 tasks that do not fail are
			// recorded done.
			release := make(chan struct{})
			var mu sync.Mutex
			done := 0
			events := event.SinkFunc(func(e event.Event) {
				if e.Type != "step" || e.Data["state"] != ledger.Finished {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if done++; done == 8 {
					close(release)
				}
			})
			b := night.BuilderFunc(func(ctx context.Context, a night.Assignment) night.Attempt {
				switch a.Task.Title {
				case "B":
					select {
					case <-release:
					case <-ctx.Done():
						return night.Attempt{Outcome: agent.Interrupted}
					}
					fallthrough
				case "A":
					if a.Worker == "m1" {
						return night.Attempt{Outcome: agent.Unverified, Reason: "half done", Tokens: 100}
					}
				}
				return night.Attempt{Outcome: agent.Done, Answer: "ok", Tokens: 100}
			})
			sum, err := night.Run(ctx, night.Config{Pipeline: p, Ledger: l, Builder: b, Clock: clk, Events: events})
			if err != nil {
				t.Fatal(err)
			}
			steps, err := l.Steps(ctx, sum.Night.ID)
			if err != nil {
				t.Fatal(err)
			}
			fs, err := l.Failures(ctx, sum.Night.ID)
			if err != nil {
				t.Fatal(err)
			}
			defer logNight(t, sum.Night, steps, fs)
			var seconds []ledger.Failure
			for _, f := range fs {
				if f.Rule == string(night.SecondFailure) {
					seconds = append(seconds, f)
				}
			}
			want := fmt.Sprintf("(tasks %d and %d)", ids["A"], ids["B"])
			if len(seconds) != 1 || seconds[0].Worker != "m1" || seconds[0].Task != ids["B"] || !strings.Contains(seconds[0].Reason, want) {
				t.Errorf("second failures %+v; want one, recorded with B, sending m1 out %s", seconds, want)
			}
			finished := 0
			for _, s := range steps {
				if s.Worker != "m1" {
					t.Errorf("step %d on %s: nothing was left once m1 was out", s.ID, s.Worker)
				}
				if s.State == ledger.Finished {
					finished++
				}
			}
			if finished != 8 || len(steps) != 10 {
				t.Errorf("%d steps, %d finished; want 10, the 8 that do not fail finished", len(steps), finished)
			}
			if n := sum.Night; n.End != ledger.OutOfWork || !strings.Contains(n.Reason, "nothing takeable: 2 queued, 2 skipped tonight") {
				t.Errorf("the night ended %s: %s; want out of work, A and B skipped", n.End, n.Reason)
			}
		})
	}
}
