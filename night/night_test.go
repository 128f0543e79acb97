package night_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/night"
)

// TestSeedIncident is seed 003's incident: one refused tool call and an
// empty answer on one idea must not end the night early, and the failed
// attempt is in the ledger where the escalation rule counts it.
func TestSeedIncident(t *testing.T) {
	f := setup(t, seedPipeline)
	book := f.add("booklet from a public-domain text", 9)
	b := f.builder(10*time.Minute, func(a night.Assignment) night.Attempt {
		if a.Task.ID == book.ID {
			return refusedThenEmpty(a)
		}
		return done(a)
	})
	models := map[string]llm.Model{"idea": proposer(), "judge": judge()}
	sum := f.run(b, models)

	if sum.Night.End != ledger.CeilingsReached {
		t.Fatalf("the night ended %s (%s); one bad task must not end it early", sum.Night.End, sum.Night.Reason)
	}
	if sum.Finished[ledger.Builder] != 14 {
		t.Errorf("builder finished %d steps, want its ceiling of 14", sum.Finished[ledger.Builder])
	}
	if f.calls[0].Task != book.Title {
		t.Errorf("first attempt was on %q, want the best-scored booklet", f.calls[0].Task)
	}
	fs := f.failures(sum.Night)
	if diff := cmp.Diff([]string{"task empty-answer"}, rules(fs)); diff != "" {
		t.Fatalf("failures (-want +got):\n%s", diff)
	}
	if fs[0].Task != book.ID || fs[0].Level != 0 || fs[0].Worker != "b1" {
		t.Errorf("the failed attempt is recorded as %+v, want task %d at level 0 by b1", fs[0], book.ID)
	}
	for _, c := range f.calls[1:] {
		if c.Task == book.Title {
			t.Errorf("the skipped booklet was attempted again tonight")
		}
	}

	// The next night the same idea fails the same way: the escalation
	// rule finds both failed attempts and hands it to the next model.
	f.clk.Advance(24 * time.Hour)
	f.calls = nil
	f.run(b, models)
	task, _ := f.l.Task(context.Background(), book.ID)
	if task.Level != 1 {
		t.Errorf("after two nights failing with b1 the task is at level %d, want 1 (b2)", task.Level)
	}
	f.clk.Advance(24 * time.Hour)
	f.calls = nil
	f.run(b, models)
	if len(f.calls) == 0 || f.calls[0] != (call{book.Title, "b2"}) {
		t.Errorf("third night's first attempt = %v, want the booklet on b2", f.calls)
	}
}

func TestCharging(t *testing.T) {
	quota := &llm.Error{Provider: "scripted", Class: llm.Quota, Status: 429, Type: "insufficient_quota"}
	auth := &llm.Error{Provider: "scripted", Class: llm.Auth, Status: 401}
	tests := []struct {
		name     string
		fail     map[string]night.Attempt // by task title
		failures []string
		workers  []string // the worker of each attempt, in order
		end      ledger.EndKind
	}{
		{
			name:     "a failed step costs its task the night, not the worker",
			fail:     map[string]night.Attempt{"a": {Outcome: agent.StepLimit, Reason: "20 steps"}},
			failures: []string{"task failed-step"},
			workers:  []string{"b1", "b1", "b1"},
			end:      ledger.OutOfWork, // nothing left to take: the skipped task waits for tomorrow
		},
		{
			name:     "an attempt that reached its own budget costs its task the night, never the worker",
			fail:     map[string]night.Attempt{"a": {Outcome: agent.Budget, Calls: 3, Tokens: 9000, Reason: "the next call would cross the budget of 10000 tokens"}},
			failures: []string{"task attempt-budget"},
			workers:  []string{"b1", "b1", "b1"},
			end:      ledger.OutOfWork,
		},
		{
			name:     "an attempt past its time limit costs its task the night",
			fail:     map[string]night.Attempt{"a": {Outcome: agent.Timeout, Calls: 2, Reason: "the run's time limit of 30m0s passed"}},
			failures: []string{"task attempt-timeout"},
			workers:  []string{"b1", "b1", "b1"},
			end:      ledger.OutOfWork,
		},
		{
			name:     "an attempt whose context window is full costs its task the night",
			fail:     map[string]night.Attempt{"a": {Outcome: agent.ContextFull, Calls: 1, Err: &agent.ContextFullError{Window: 512, Prompt: 416}}},
			failures: []string{"task failed-step"},
			workers:  []string{"b1", "b1", "b1"},
			end:      ledger.OutOfWork,
		},
		{
			name:     "an attempt the loop detector ended costs its task the night",
			fail:     map[string]night.Attempt{"a": {Outcome: agent.StepLimit, Calls: 4, Err: &agent.LoopError{Tool: "read_file", Count: 4}, Reason: "loop: read_file repeated 4 times"}},
			failures: []string{"task loop"},
			workers:  []string{"b1", "b1", "b1"},
			end:      ledger.OutOfWork,
		},
		{
			name: "a budget stop and a loop on two tasks are a second failure: they are failed steps",
			fail: map[string]night.Attempt{
				"a": {Outcome: agent.Budget, Calls: 3},
				"b": {Outcome: agent.StepLimit, Calls: 4, Err: &agent.LoopError{Tool: "read_file", Count: 4}},
			},
			failures: []string{"task attempt-budget", "task loop", "worker second-failure"},
			workers:  []string{"b1", "b1", "b2"},
			end:      ledger.OutOfWork,
		},
		{
			name: "a second failed step on a different task sends the worker out and the next model goes on",
			fail: map[string]night.Attempt{
				"a": {Outcome: agent.Unverified, Answer: "half", Checks: []string{"five-steps"}},
				"b": {Outcome: agent.Truncated},
			},
			failures: []string{"task failed-step", "task failed-step", "worker second-failure"},
			workers:  []string{"b1", "b1", "b2"},
			end:      ledger.OutOfWork,
		},
		{
			name:     "a quota refusal sends the worker out and leaves the task in the queue",
			fail:     map[string]night.Attempt{"a@b1": {Outcome: agent.APIFailure, Err: quota}},
			failures: []string{"worker quota"},
			workers:  []string{"b1", "b2", "b2", "b2"},
			end:      ledger.OutOfWork, // the backlog ran dry
		},
		{
			name:     "a failure before the first model call sends the worker out and leaves the task in the queue",
			fail:     map[string]night.Attempt{"a@b1": {Outcome: agent.Failed, Reason: "journal: no space left on device"}},
			failures: []string{"worker no-task"},
			workers:  []string{"b1", "b2", "b2", "b2"},
			end:      ledger.OutOfWork,
		},
		{
			name:     "a configuration error stops the system",
			fail:     map[string]night.Attempt{"a": {Outcome: agent.Usage, Reason: "model b1 was not built"}},
			failures: []string{"system config"},
			workers:  []string{"b1"},
			end:      ledger.SystemStopped,
		},
		{
			name:     "an auth failure stops the system",
			fail:     map[string]night.Attempt{"a": {Outcome: agent.APIFailure, Err: auth}},
			failures: []string{"system auth"},
			workers:  []string{"b1"},
			end:      ledger.SystemStopped,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t, twoBuilders)
			f.add("a", 9)
			f.add("b", 8)
			f.add("c", 7)
			sum := f.run(f.builder(time.Minute, func(a night.Assignment) night.Attempt {
				if r, ok := tt.fail[a.Task.Title+"@"+a.Worker]; ok {
					return r
				}
				if r, ok := tt.fail[a.Task.Title]; ok {
					return r
				}
				return done(a)
			}), nil)
			if diff := cmp.Diff(tt.failures, rules(f.failures(sum.Night))); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
			var workers []string
			for _, c := range f.calls {
				workers = append(workers, c.Worker)
			}
			if diff := cmp.Diff(tt.workers, workers); diff != "" {
				t.Errorf("workers (-want +got):\n%s", diff)
			}
			if sum.Night.End != tt.end {
				t.Errorf("night ended %s (%s), want %s", sum.Night.End, sum.Night.Reason, tt.end)
			}
		})
	}
}

func TestNightEnds(t *testing.T) {
	t.Run("the builder's ceiling of 14 steps ends the night as ceilings reached", func(t *testing.T) {
		f := setup(t, twoBuilders)
		for i := range 20 {
			f.add("task "+string(rune('a'+i)), float64(i))
		}
		sum := f.run(f.builder(time.Minute, done), nil)
		if sum.Night.End != ledger.CeilingsReached || sum.Finished[ledger.Builder] != 14 {
			t.Errorf("ended %s after %d builder steps, want ceilings-reached after 14", sum.Night.End, sum.Finished[ledger.Builder])
		}
	})
	t.Run("the window closing ends the night", func(t *testing.T) {
		f := setup(t, twoBuilders)
		for i := range 10 {
			f.add("slow "+string(rune('a'+i)), 1)
		}
		sum := f.run(f.builder(3*time.Hour, done), nil)
		if sum.Night.End != ledger.WindowClosed || sum.Finished[ledger.Builder] != 3 {
			t.Errorf("ended %s after %d steps, want window-closed after 3 three-hour steps", sum.Night.End, sum.Finished[ledger.Builder])
		}
	})
	t.Run("a night with every builder out is cut short and says why", func(t *testing.T) {
		f := setup(t, twoBuilders)
		f.add("a", 1)
		quota := night.Attempt{Outcome: agent.APIFailure, Err: &llm.Error{Class: llm.Quota}}
		sum := f.run(f.builder(time.Minute, func(night.Assignment) night.Attempt { return quota }), nil)
		if sum.Night.End != ledger.CutShort || !strings.Contains(sum.Night.Reason, "every builder worker is out") || !sum.Night.CutShort() {
			t.Errorf("ended %s: %q", sum.Night.End, sum.Night.Reason)
		}
	})
	t.Run("a night with nothing takeable is out of work, not cut short", func(t *testing.T) {
		f := setup(t, twoBuilders)
		f.add("a", 1)
		sum := f.run(f.builder(time.Minute, done), nil)
		if sum.Night.End != ledger.OutOfWork || !sum.Night.OutOfWork() || sum.Night.CutShort() {
			t.Errorf("ended %s: %q", sum.Night.End, sum.Night.Reason)
		}
	})
}

// TestWIPNeverDeadlocks: with the WIP cap full of tasks the builder skipped,
// the proposer goes on adding ideas and the builder goes on building them.
func TestWIPNeverDeadlocks(t *testing.T) {
	f := setup(t, `
window: {start: "22:00", end: "06:00"}
wip: 1
models:
  p: {provider: scripted, scenario: unused.yaml}
  b: {provider: scripted, scenario: unused.yaml}
roles:
  proposer: {models: [p], ceiling: 4}
  builder: {models: [b]}
`)
	n := 0
	proposer := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		n++
		return &llm.Response{Content: []llm.Block{llm.Text("idea " + string(rune('0'+n)))}, StopReason: llm.EndTurn}, nil
	})
	sum := f.run(f.builder(time.Minute, func(a night.Assignment) night.Attempt {
		if a.Task.Title == "idea 1" {
			return refusedThenEmpty(a)
		}
		return done(a)
	}), map[string]llm.Model{"p": proposer})
	if sum.Finished[ledger.Proposer] != 4 || sum.Finished[ledger.Builder] != 4 {
		t.Errorf("finished %v; the skipped idea must not hold the proposer at the WIP cap", sum.Finished)
	}
}

func TestParking(t *testing.T) {
	parks := func(a night.Assignment) night.Attempt {
		for _, p := range a.Approved {
			if p.Action == `fetch {"url":"https://example.org/book"}` {
				return night.Attempt{Outcome: agent.Done, Answer: "fetched and built", UsedApprovals: []int64{p.ID}}
			}
		}
		return night.Attempt{Outcome: agent.Parked, Park: &night.ParkRequest{Action: `fetch {"url":"https://example.org/book"}`, Reason: "danger"}}
	}
	t.Run("an approved task runs its approved action at the next step", func(t *testing.T) {
		f := setup(t, twoBuilders)
		task := f.add("fetch the book", 5)
		sum := f.run(f.builder(time.Minute, parks), nil)
		if got, _ := f.l.Task(context.Background(), task.ID); got.State != ledger.Parked {
			t.Fatalf("task state %s, want parked", got.State)
		}
		if sum.Night.Early() && sum.Night.EndedAt.Before(sum.Night.WindowEnd) {
			// It waited for a person until the deadline or the window.
			t.Errorf("the night gave up on a parked task at %s: %s", sum.Night.EndedAt, sum.Night.Reason)
		}
		if _, err := f.l.Decide(context.Background(), task.ID, ledger.Approved, f.clk.Now()); err != nil {
			t.Fatal(err)
		}
		f.clk.Advance(16 * time.Hour)
		f.run(f.builder(time.Minute, parks), nil)
		got, _ := f.l.Task(context.Background(), task.ID)
		ps, _ := f.l.ParkedActions(context.Background())
		if got.State != ledger.Done || !ps[0].Used {
			t.Errorf("after approval: task %s, action used %v", got.State, ps[0].Used)
		}
	})
	for _, policy := range []struct {
		past string
		want ledger.TaskState
	}{{"fail", ledger.Failed}, {"requeue", ledger.Queued}} {
		t.Run("a parked task past its deadline is settled: "+policy.past, func(t *testing.T) {
			f := setup(t, twoBuilders+"park: {deadline: 2h, past_deadline: "+policy.past+"}\n")
			task := f.add("fetch the book", 5)
			sum := f.run(f.builder(time.Minute, parks), nil)
			fs := f.failures(sum.Night)
			if len(fs) == 0 || fs[0].Rule != "park-deadline" {
				t.Fatalf("failures %v, want the deadline recorded", rules(fs))
			}
			// Requeued, it is back in the queue but, charged to the task,
			// on tonight's skip list: it is not tried again tonight.
			if got, _ := f.l.Task(context.Background(), task.ID); got.State != policy.want || len(f.calls) != 1 {
				t.Errorf("task state %s after %d attempts, want %s after 1", got.State, len(f.calls), policy.want)
			}
		})
	}
}

// TestCrashRestart: a night restarted after its process died mid-attempt
// continues the interrupted attempt on its workspace as it was left (the
// same owner: the journal is on this machine); with
// roles.builder.rollback_on_interrupt it restores the workspace and
// retries the attempt from its start.
func TestCrashRestart(t *testing.T) {
	for _, rollback := range []bool{false, true} {
		name := "the attempt is continued"
		if rollback {
			name = "with rollback_on_interrupt the workspace is restored and the attempt retried"
		}
		t.Run(name, func(t *testing.T) {
			f := setup(t, twoBuilders)
			f.p.Roles[ledger.Builder].RollbackOnInterrupt = rollback
			task := f.add("half done", 5)
			ctx, cancel := context.WithCancel(context.Background())
			crash := night.BuilderFunc(func(context.Context, night.Assignment) night.Attempt { cancel(); panic("power cut") })
			_, err := night.Run(ctx, night.Config{Pipeline: f.p, Ledger: f.l, Builder: crash, Clock: f.clk})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("crashed night: %v", err)
			}
			var restored []string
			var continues []int64
			again := night.BuilderFunc(func(_ context.Context, a night.Assignment) night.Attempt {
				if a.Continues != nil {
					continues = append(continues, a.Continues.ID)
				}
				return done(a)
			})
			sum, err := night.Run(context.Background(), night.Config{Pipeline: f.p, Ledger: f.l, Builder: again, Clock: f.clk,
				Restore: func(dir string) error { restored = append(restored, dir); return nil }})
			if err != nil {
				t.Fatal(err)
			}
			steps, _ := f.l.Steps(context.Background(), sum.Night.ID)
			var states []ledger.StepState
			for _, s := range steps {
				states = append(states, s.State)
			}
			if diff := cmp.Diff([]ledger.StepState{ledger.Interrupted, ledger.Finished}, states); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			got, _ := f.l.Task(context.Background(), task.ID)
			if got.State != ledger.Done {
				t.Errorf("task %s, want done", got.State)
			}
			if rollback {
				if len(restored) != 1 || !strings.HasSuffix(restored[0], "task-1") || len(continues) != 0 || steps[1].Continues != 0 {
					t.Errorf("restored %v, continued %v", restored, continues)
				}
				return
			}
			if len(restored) != 0 || len(continues) != 1 || continues[0] != steps[0].ID || steps[1].Continues != steps[0].ID {
				t.Errorf("restored %v, continued %v; want step %d continued on its workspace", restored, continues, steps[0].ID)
			}
		})
	}
}
