package lifecycle_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/runspec"
)

// TestALibraryCallersNegativeStepLimitIsAnError is issue 24's "validation
// in the library": MaxSteps: -1 tripped the step brake before the first
// call; now it is the CLI's error, and nothing runs.
func TestALibraryCallersNegativeStepLimitIsAnError(t *testing.T) {
	for name, set := range map[string]func(*lifecycle.Config){
		"max steps":      func(c *lifecycle.Config) { c.Spec.MaxSteps = -1 },
		"a budget":       func(c *lifecycle.Config) { c.Spec.BudgetUSD = -0.5 },
		"a time limit":   func(c *lifecycle.Config) { c.Spec.Timeout = runspec.Duration(-time.Minute) },
		"context window": func(c *lifecycle.Config) { c.Spec.ContextWindow = -1 },
	} {
		t.Run(name, func(t *testing.T) {
			f := setup(t, writeThenDone)
			set(&f.cfg)
			res, err := lifecycle.Run(context.Background(), f.cfg, "work on notes.md")
			if !errors.Is(err, runspec.ErrInvalid) || res != nil {
				t.Fatalf("res %v, err %v: want the spec's error and no run", res, err)
			}
			if got := f.read(t, "notes.md"); got != "old\n" {
				t.Errorf("notes.md = %q: the run must not start", got)
			}
		})
	}
	f := setup(t, writeThenDone)
	f.cfg.Spec.MaxSteps = -1
	_, err := lifecycle.Run(context.Background(), f.cfg, "x")
	var s runspec.Spec
	s.MaxSteps = -1
	if want := s.Validate(); err == nil || err.Error() != want.Error() {
		t.Errorf("err = %v, want the CLI's %q", err, want)
	}
}

// TestAConfigsSpecIsTheRunsOptionsAndItsCheckpointKeepsIt: a library
// caller hands the lifecycle a run spec as the CLI does; the lifecycle
// reads it, records it in the checkpoint, and a resume goes on with the
// recorded spec, its budget raised by the caller.
func TestAConfigsSpecIsTheRunsOptionsAndItsCheckpointKeepsIt(t *testing.T) {
	t.Run("a spec that cannot run is the CLI's error, before any call", func(t *testing.T) {
		f := setup(t, writeThenDone)
		var s runspec.Spec
		s.MaxSteps = -1
		f.cfg.Spec = &s
		res, err := lifecycle.Run(context.Background(), f.cfg, "work on notes.md")
		if !errors.Is(err, runspec.ErrInvalid) || res != nil || err.Error() != s.Validate().Error() {
			t.Fatalf("res %v, err %v: want %q and no run", res, err, s.Validate())
		}
		if got := f.read(t, "notes.md"); got != "old\n" {
			t.Errorf("notes.md = %q: the run must not start", got)
		}
	})
	f := setup(t, fiveFiles)
	var s runspec.Spec
	s.BudgetTokens = 7000
	f.cfg.Spec = &s
	res := f.run(t)
	if res.Outcome != agent.Budget || res.Steps != 3 {
		t.Fatalf("outcome %s after %d steps (%s), want budget after 3: the spec's budget", res.Outcome, res.Steps, res.Reason)
	}
	ck, err := lifecycle.ReadCheckpoint(f.cfg, res.RunID)
	if err != nil || ck.Spec == nil || ck.Spec.BudgetTokens != 7000 {
		t.Fatalf("checkpoint spec %+v (%v), want the run's", ck, err)
	}
	// The caller raises the budget on the spec the run recorded.
	raised := ck.Spec.Clone()
	raised.BudgetTokens = 20000
	f.cfg.Spec = &raised
	res2 := f.resume(t, f.model(t, fiveFiles), res.RunID)
	if res2.Outcome != agent.Done || res2.Steps != 6 {
		t.Errorf("resumed: outcome %s after %d steps (%s), want done after 6", res2.Outcome, res2.Steps, res2.Reason)
	}
}

// TestRollbackOnLimitRollsAPausedRunBack: the night's wish, passed to the
// lifecycle, which alone decides: a run its budget stopped is rolled
// back, not paused (the night rolled it back itself, after the
// lifecycle had suspended it).
func TestRollbackOnLimitRollsAPausedRunBack(t *testing.T) {
	for _, wish := range []bool{false, true} {
		f := setup(t, writeThenDone)
		f.cfg.Spec.BudgetTokens = 1000
		f.cfg.RollbackOnLimit = wish
		res := f.run(t)
		if res.Outcome != "budget" {
			t.Fatalf("outcome %s (%s), want budget", res.Outcome, res.Reason)
		}
		if res.Suspended == wish || (f.read(t, "notes.md") == "old\n") != wish {
			t.Errorf("RollbackOnLimit %v: suspended %v, notes.md %q", wish, res.Suspended, f.read(t, "notes.md"))
		}
	}
}
