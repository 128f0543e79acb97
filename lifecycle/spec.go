package lifecycle

import (
	"time"

	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/tool/fs"
)

// readSpec checks the run spec (Config.Spec) and keeps a copy of it as
// the run reads it (c.spec), with its retry counts laid over c.Retry. It
// is the one place a spec reaches a run: `nightshift run` and `batch`,
// and the night's builder, all go through it. A spec that cannot run is
// an error matching runspec.ErrInvalid, naming the field as the CLI does
// (a library caller's MaxSteps: -1 is `--max-steps (task file:
// max_steps) must not be negative, got -1`). The lifecycle's own
// negatives that mean "none" (MaxVerifyRounds, MaxCallsPerReply and
// LoopLimit below 0) pass.
func (c *Config) readSpec() error {
	var s runspec.Spec
	if c.Spec != nil {
		s = c.Spec.Clone()
	}
	// The rules are the caller's: it reads their files from its own
	// folder when it builds the verifier.
	checked := s
	checked.Checks = nil
	checked.MaxVerifyRounds = max(checked.MaxVerifyRounds, 0)
	checked.MaxCallsPerReply = max(checked.MaxCallsPerReply, 0)
	if checked.LoopLimit != nil && *checked.LoopLimit < 0 {
		checked.LoopLimit = nil
	}
	if err := checked.Validate(); err != nil {
		return err
	}
	if s.Retries != nil {
		c.Retry.Retries = retry.Count(*s.Retries)
	}
	if s.Backoff > 0 {
		c.Retry.Backoff = s.Backoff.D()
	}
	if s.RetryBudget > 0 {
		c.Retry.Budget = s.RetryBudget.D()
	}
	c.spec = s
	return nil
}

// policy is the gate's policy: the spec's rules over the default
// (read=allow,write=allow,danger=ask). readSpec checked each rule.
func (c *Config) policy() (gate.Policy, error) { return gate.ParsePolicy(c.spec.Approve...) }

// sandboxConfig is how the run's commands are confined: the spec's
// mode, network and variables, from the caller's environment.
func (c *Config) sandboxConfig() (sandbox.Config, error) {
	sbc, err := c.spec.SandboxConfig()
	sbc.Environ = c.Environ
	return sbc, err
}

// maxFileSize is the file tools' size limit in bytes, 0 for the default
// (fs.DefaultMaxFileSize); readSpec parsed it.
func (c *Config) maxFileSize() int64 {
	n, _ := fs.ParseSize(c.spec.MaxFileSize)
	return n
}

// commandTimeout bounds each command of run_command; 0 is the default
// (command.DefaultTimeout).
func (c *Config) commandTimeout() time.Duration { return c.spec.CommandTimeout.D() }

// limits are the spec's budget.
func (c *Config) limits() budget.Limits {
	return budget.Limits{USD: c.spec.BudgetUSD, Tokens: c.spec.BudgetTokens}
}

// window is the worker model's context window: the spec's, else the one
// the caller knows (ModelWindow), else 0 (unknown).
func (c *Config) window() int {
	if c.spec.ContextWindow > 0 {
		return c.spec.ContextWindow
	}
	return c.ModelWindow
}

// memoryOn says whether the run has remember and recall: the spec turns
// them on, or the caller gave a store.
func (c *Config) memoryOn() bool { return c.Memory != nil || c.Spec != nil && c.Spec.Memory }
