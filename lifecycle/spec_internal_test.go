package lifecycle

import (
	"errors"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/sandbox"
)

// TestASpecLaysItsFieldsOverAConfig: the fields a spec sets replace the
// config's, the others stay; rules go on top of the policy.
func TestASpecLaysItsFieldsOverAConfig(t *testing.T) {
	deny, _ := gate.ParsePolicy("danger=deny")
	c := Config{MaxSteps: 7, MaxTokens: 100, Policy: deny, CommandTimeout: time.Minute}
	var s runspec.Spec
	s.MaxSteps, s.MaxCallsPerReply, s.Sandbox, s.SandboxNet = 3, 5, "none", true
	s.Approve, s.Env, s.Timeout = runspec.List{"run_command=allow"}, runspec.List{"GOFLAGS"}, runspec.Duration(time.Hour)
	if err := c.applySpec(&s); err != nil {
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
	if err := c.applySpec(&s); !errors.Is(err, runspec.ErrInvalid) {
		t.Errorf("err = %v, want the spec's", err)
	}
}
