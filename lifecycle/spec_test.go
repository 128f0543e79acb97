package lifecycle_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/sandbox"
)

// TestALibraryCallersNegativeStepLimitIsAnError is issue 24's "validation
// in the library": MaxSteps: -1 tripped the step brake before the first
// call; now it is the CLI's error, and nothing runs.
func TestALibraryCallersNegativeStepLimitIsAnError(t *testing.T) {
	for name, set := range map[string]func(*lifecycle.Config){
		"max steps":      func(c *lifecycle.Config) { c.MaxSteps = -1 },
		"a budget":       func(c *lifecycle.Config) { c.Budget.USD = -0.5 },
		"a time limit":   func(c *lifecycle.Config) { c.Timeout = -time.Minute },
		"context window": func(c *lifecycle.Config) { c.ContextWindow = -1 },
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
	f.cfg.MaxSteps = -1
	_, err := lifecycle.Run(context.Background(), f.cfg, "x")
	var s runspec.Spec
	s.MaxSteps = -1
	if want := s.Validate(); err == nil || err.Error() != want.Error() {
		t.Errorf("err = %v, want the CLI's %q", err, want)
	}
}

// TestASpecLaysItsFieldsOverAConfig: the fields a spec sets replace the
// config's, the others stay; rules go on top of the policy.
func TestASpecLaysItsFieldsOverAConfig(t *testing.T) {
	deny, _ := gate.ParsePolicy("danger=deny")
	c := lifecycle.Config{MaxSteps: 7, MaxTokens: 100, Policy: deny, CommandTimeout: time.Minute}
	var s runspec.Spec
	s.MaxSteps, s.MaxCallsPerReply, s.Sandbox, s.SandboxNet = 3, 5, "none", true
	s.Approve, s.Env, s.Timeout = runspec.List{"run_command=allow"}, runspec.List{"GOFLAGS"}, runspec.Duration(time.Hour)
	if err := c.SetSpec(&s); err != nil {
		t.Fatal(err)
	}
	switch {
	case c.MaxSteps != 3 || c.MaxTokens != 100 || c.MaxCallsPerReply != 5 || c.Timeout != time.Hour || c.CommandTimeout != time.Minute:
		t.Errorf("limits %d %d %d %s %s", c.MaxSteps, c.MaxTokens, c.MaxCallsPerReply, c.Timeout, c.CommandTimeout)
	case c.Policy.Decide("run_command", "danger") != gate.Allow || c.Policy.Decide("other", "danger") != gate.Deny:
		t.Errorf("policy %s", c.Policy)
	case c.Sandbox.Mode != sandbox.None || !c.Sandbox.Net || len(c.Sandbox.Env) != 1:
		t.Errorf("sandbox %+v", c.Sandbox)
	}
	s.MaxCallsPerReply = -2
	if err := c.SetSpec(&s); !errors.Is(err, runspec.ErrInvalid) {
		t.Errorf("err = %v, want the spec's", err)
	}
}

// TestRollbackOnLimitRollsAPausedRunBack: the night's wish, passed to the
// lifecycle, which alone decides: a run its budget stopped is rolled
// back, not paused (the night rolled it back itself, after the
// lifecycle had suspended it).
func TestRollbackOnLimitRollsAPausedRunBack(t *testing.T) {
	for _, wish := range []bool{false, true} {
		f := setup(t, writeThenDone)
		f.cfg.Budget.Tokens = 1000
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
