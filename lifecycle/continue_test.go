package lifecycle_test

import (
	"context"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/verify"
)

// stoppedMidway runs a task that rewrites notes.md and is then
// interrupted (its context ends during the next model call), with
// SuspendInterrupted set.
func stoppedMidway(t *testing.T) (*fixture, *lifecycle.Result) {
	t.Helper()
	f := setup(t, writeThenDone)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inner := f.cfg.Model
	calls := 0
	f.cfg.Model = llm.ModelFunc(func(c context.Context, req *llm.Request) (*llm.Response, error) {
		calls++
		if calls == 2 {
			cancel() // the user presses Ctrl-C while the model thinks
			return nil, c.Err()
		}
		return inner.Generate(c, req)
	})
	f.cfg.SuspendInterrupted = true
	res, err := lifecycle.Run(ctx, f.cfg, "work on notes.md")
	if err != nil {
		t.Fatal(err)
	}
	return f, res
}

func TestInterruptedRunIsSuspendedAndContinued(t *testing.T) {
	t.Run("an interrupted run keeps its changes with its journal pending", func(t *testing.T) {
		f, res := stoppedMidway(t)
		if res.Outcome != agent.Interrupted || !res.Suspended || res.Rollback != nil || res.Kept {
			t.Fatalf("outcome %s, suspended %v, rollback %v, kept %v", res.Outcome, res.Suspended, res.Rollback, res.Kept)
		}
		if got := f.read(t, "notes.md"); got != "new\n" {
			t.Errorf("notes.md = %q, want the interrupted run's change kept", got)
		}
		if p, _ := journal.Pending(res.StateDir); len(p) != 1 {
			t.Errorf("pending journals %v, want the interrupted run's", p)
		}
		if types := f.events.Types(); types[len(types)-2] != "rollback" {
			t.Errorf("events %v, want the suspension reported before the outcome", types)
		}
	})
	t.Run("a run that continues it and ends done keeps every change and leaves no journal", func(t *testing.T) {
		f, first := stoppedMidway(t)
		f.cfg.Model = scripted.New(mustScenario(t, "turns:\n  - text: Finished the notes.\n"), scripted.Config{Clock: f.clock})
		f.cfg.Continue = true
		res := f.run(t)
		if res.Outcome != agent.Done || !res.Kept {
			t.Fatalf("outcome %s (%s), kept %v", res.Outcome, res.Reason, res.Kept)
		}
		if got := f.read(t, "notes.md"); got != "new\n" {
			t.Errorf("notes.md = %q, want the first run's change kept", got)
		}
		if p, _ := journal.Pending(first.StateDir); len(p) != 0 {
			t.Errorf("journals left pending: %v", p)
		}
	})
	t.Run("a run that continues it and fails undoes both", func(t *testing.T) {
		f, first := stoppedMidway(t)
		f.cfg.Model = scripted.New(mustScenario(t, "turns:\n  - text: Finished the notes.\n"), scripted.Config{Clock: f.clock})
		f.cfg.Continue = true
		f.cfg.Verifier = &verify.Verifier{Rules: []verify.Rule{verify.MinChars("notes.md", 100)}}
		f.cfg.MaxVerifyRounds = -1
		res := f.run(t)
		if res.Outcome != agent.Unverified || res.Kept {
			t.Fatalf("outcome %s, kept %v", res.Outcome, res.Kept)
		}
		if got := f.read(t, "notes.md"); got != "old\n" {
			t.Errorf("notes.md = %q, want it as before the first run", got)
		}
		if p, _ := journal.Pending(first.StateDir); len(p) != 0 {
			t.Errorf("journals left pending: %v", p)
		}
	})
	t.Run("without SuspendInterrupted an interrupted run is rolled back, as before", func(t *testing.T) {
		f := setup(t, writeThenDone)
		ctx, cancel := context.WithCancel(context.Background())
		inner := f.cfg.Model
		calls := 0
		f.cfg.Model = llm.ModelFunc(func(c context.Context, req *llm.Request) (*llm.Response, error) {
			if calls++; calls == 2 {
				cancel()
				return nil, c.Err()
			}
			return inner.Generate(c, req)
		})
		res, err := lifecycle.Run(ctx, f.cfg, "work on notes.md")
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != agent.Interrupted || res.Suspended || f.read(t, "notes.md") != "old\n" {
			t.Errorf("outcome %s, suspended %v, notes.md %q", res.Outcome, res.Suspended, f.read(t, "notes.md"))
		}
	})
}

func mustScenario(t *testing.T, yaml string) *scripted.Scenario {
	t.Helper()
	sc, err := scripted.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
