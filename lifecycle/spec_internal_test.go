package lifecycle

import (
	"errors"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/sandbox"
)

// TestTheRunReadsItsOptionsFromTheSpec: the spec is the one place a
// run's options live; the run reads its limits, gate rules (over the
// default policy), sandbox and retry counts from it, and a negative that
// means "none" to a library caller passes.
func TestTheRunReadsItsOptionsFromTheSpec(t *testing.T) {
	var s runspec.Spec
	zero := 0
	s.MaxSteps, s.MaxCallsPerReply, s.Sandbox, s.SandboxNet, s.Retries = 3, 5, "none", true, &zero
	s.Approve, s.Env, s.Timeout = runspec.List{"run_command=allow"}, runspec.List{"GOFLAGS"}, runspec.Duration(time.Hour)
	s.CommandTimeout, s.MaxFileSize, s.BudgetTokens = runspec.Duration(time.Minute), "1KiB", 900
	c := Config{Spec: &s, Environ: []string{"GOFLAGS=-x"}}
	if err := c.readSpec(); err != nil {
		t.Fatal(err)
	}
	p, err := c.policy()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := c.sandboxConfig()
	switch {
	case err != nil:
		t.Fatal(err)
	case c.spec.MaxSteps != 3 || c.spec.MaxCallsPerReply != 5 || c.spec.Timeout.D() != time.Hour || c.commandTimeout() != time.Minute:
		t.Errorf("limits %+v", c.spec.Limits)
	case c.maxFileSize() != 1024 || c.limits().Tokens != 900 || c.Retry.Retries != retry.NoRetries:
		t.Errorf("file size %d, budget %+v, retries %d", c.maxFileSize(), c.limits(), c.Retry.Retries)
	case p.Decide("run_command", "danger") != gate.Allow || p.Decide("other", "danger") != gate.Ask:
		t.Errorf("policy %s", p)
	case sb.Mode != sandbox.None || !sb.Net || len(sb.Env) != 1 || len(sb.Environ) != 1:
		t.Errorf("sandbox %+v", sb)
	}
	s.MaxCallsPerReply, s.MaxVerifyRounds = -1, -1 // none
	if err := c.readSpec(); err != nil {
		t.Errorf("err = %v, want -1 (none) to pass", err)
	}
	s.MaxSteps = -2
	if err := c.readSpec(); !errors.Is(err, runspec.ErrInvalid) {
		t.Errorf("err = %v, want the spec's", err)
	}
}
