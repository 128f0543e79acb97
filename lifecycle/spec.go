package lifecycle

import (
	"slices"
	"time"

	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/tool/fs"
)

// applySpec lays a run spec over c (Config.Spec): each field s sets (a
// zero field is "not set here") replaces c's, Approve's rules go on top
// of c's policy, Env adds to c's commands' variables, and the switches
// (NoCache, Keep, RollbackOnInterrupt, SandboxNet) are turned on, never
// off. It is the one place a spec's limits, gate, sandbox and end-of-run
// wishes reach a run: `nightshift run` and `batch`, and the night's
// builder, all go through it. A spec that cannot run is an error
// matching runspec.ErrInvalid, naming the field as the CLI does.
func (c *Config) applySpec(s *runspec.Spec) error {
	// The rules are the caller's: it reads their files from its own
	// folder when it builds the verifier.
	checked := *s
	checked.Checks = nil
	if err := checked.Validate(); err != nil {
		return err
	}
	if s.MaxSteps > 0 {
		c.MaxSteps = s.MaxSteps
	}
	if s.MaxTokens > 0 {
		c.MaxTokens = s.MaxTokens
	}
	if s.MaxVerifyRounds > 0 {
		c.MaxVerifyRounds = s.MaxVerifyRounds
	}
	if s.Retries != nil {
		c.Retry.Retries = retry.Count(*s.Retries)
	}
	if s.BudgetUSD > 0 {
		c.Budget.USD = s.BudgetUSD
	}
	if s.BudgetTokens > 0 {
		c.Budget.Tokens = s.BudgetTokens
	}
	if s.Timeout > 0 {
		c.Timeout = time.Duration(s.Timeout)
	}
	if s.LoopLimit != nil && *s.LoopLimit != 0 {
		c.LoopLimit = *s.LoopLimit
	}
	if s.MaxCallsPerReply > 0 {
		c.MaxCallsPerReply = s.MaxCallsPerReply
	}
	if s.ContextWindow > 0 {
		c.ContextWindow = s.ContextWindow
	}
	c.NoCache = c.NoCache || s.NoCache
	c.Keep = c.Keep || s.Keep
	c.RollbackOnInterrupt = c.RollbackOnInterrupt || s.RollbackOnInterrupt
	if len(s.Approve) > 0 {
		// Validate checked each rule.
		p, err := gate.ParsePolicy(append([]string{c.Policy.String()}, s.Approve...)...)
		if err != nil {
			return err
		}
		c.Policy = p
	}
	if s.Sandbox != "" {
		m, err := sandbox.ParseMode(s.Sandbox)
		if err != nil {
			return err
		}
		c.Sandbox.Mode = m
	}
	c.Sandbox.Net = c.Sandbox.Net || s.SandboxNet
	if len(s.Env) > 0 {
		c.Sandbox.Env = append(slices.Clone(c.Sandbox.Env), s.Env...)
	}
	if s.CommandTimeout > 0 {
		c.CommandTimeout = time.Duration(s.CommandTimeout)
	}
	if s.MaxFileSize != "" {
		// Validate parsed it.
		n, err := fs.ParseSize(s.MaxFileSize)
		if err != nil {
			return err
		}
		c.MaxFileSize = n
	}
	return nil
}

// validate refuses a Config whose limits no run could keep, with the
// errors a run spec's Validate gives the CLI (a library caller's
// MaxSteps: -1 is `--max-steps (task file: max_steps) must not be
// negative, got -1`). The lifecycle's own negatives that mean "none"
// (MaxVerifyRounds, LoopLimit below 0, KeepState, MaxCallsPerReply) pass.
func (c Config) validate() error {
	var s runspec.Spec
	s.MaxSteps, s.MaxTokens, s.BudgetUSD, s.BudgetTokens = c.MaxSteps, c.MaxTokens, c.Budget.USD, c.Budget.Tokens
	s.Timeout, s.CommandTimeout, s.ContextWindow = runspec.Duration(c.Timeout), runspec.Duration(c.CommandTimeout), c.ContextWindow
	s.SubagentSteps = c.SubagentSteps
	return s.Validate()
}
