package batch

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/taskfile"
	"github.com/nightshift-dev/nightshift/tool/mcp"
	"github.com/nightshift-dev/nightshift/verify"
)

// Agent runs the tasks of a batch through the run lifecycle
// (lifecycle.Run), as `nightshift run` runs one: each task in its own
// workspace, with the journal (a task that does not end done is rolled
// back in its copy, its attempt kept as a patch in the run record beside
// it), the gate, the verifier, and Base's model, retry policy and
// limiter, which every task shares.
type Agent struct {
	// Base is every task's config before its spec is applied (see
	// TaskConfig). Give every task the same Retry.Limiter per credential
	// (a retry.Limiters registry) so that they share the provider's
	// rate limit.
	Base lifecycle.Config
	// Prepare, when set, finishes one task's config after its spec was
	// applied, for what only the caller knows: the command gives each
	// task its log file and the judge that the task's judge_model names.
	// It returns a function called with the task's end (the result, or
	// the error that kept it from starting). An error from Prepare ends
	// the task with outcome usage.
	Prepare func(spec *taskfile.Spec, dir string, cfg *lifecycle.Config) (end func(*lifecycle.Result, error), err error)
}

// AgentRunner returns a RunFunc that runs each task through the run
// lifecycle starting from base; see Agent.
func AgentRunner(base lifecycle.Config) RunFunc { return (&Agent{Base: base}).Run }

// Run runs one task; it is a RunFunc.
func (a *Agent) Run(ctx context.Context, spec *taskfile.Spec, dir string) *agent.Result {
	cfg, err := TaskConfig(a.Base, spec, dir)
	if err != nil {
		return &agent.Result{Outcome: agent.Usage, Reason: err.Error(), Err: err}
	}
	end := func(*lifecycle.Result, error) {}
	if a.Prepare != nil {
		if end, err = a.Prepare(spec, dir, &cfg); err != nil {
			return &agent.Result{Outcome: agent.Usage, Reason: err.Error(), Err: err}
		}
	}
	res, err := lifecycle.Run(ctx, cfg, spec.Task)
	end(res, err)
	if err != nil {
		return &agent.Result{Outcome: notStartedOutcome(err), Reason: err.Error(), Err: err}
	}
	// A copy, so that the summary does not keep the run's record (its
	// events, its patch) alive for the rest of the batch: the record is
	// on disk, and a batch of thousands of tasks holds only their ends.
	out := res.Result
	return &out
}

// notStartedOutcome is the outcome of a task whose run could not begin.
func notStartedOutcome(err error) agent.Outcome {
	if errors.Is(err, journal.ErrNeedsRecovery) {
		return agent.NeedsRecovery
	}
	if errors.Is(err, journal.ErrBusy) {
		return agent.Busy
	}
	if errors.Is(err, mcp.ErrConfig) {
		// An MCP server of the task's that did not start: a mistake in
		// the task, not a failure of the run.
		return agent.Usage
	}
	return agent.Failed
}

// TaskConfig returns the lifecycle config of one task: base with the
// task's workspace dir, and its spec laid over base's (runspec.Spec.Over:
// the limits the task sets, max_steps, max_tokens, max_verify_rounds,
// and retries, where 0 means none; its gate rules on top of base's), its
// output schema (read relative to the task file), and a verifier of its
// checks and base's rules, with base's judge given the task's rubric
// unless the task says no_judge, and its MCP servers after base's. Each
// task is its own run (its own run ID) in its own workspace, its state
// kept with it: base.StateDir and base.RunID are not used. A check, a
// gate rule or a schema that cannot be used is an error.
func TaskConfig(base lifecycle.Config, spec *taskfile.Spec, dir string) (lifecycle.Config, error) {
	cfg := base
	cfg.Dir, cfg.StateDir, cfg.RunID = dir, "", ""
	// The task's limits, gate rules, sandbox and end-of-run wishes, over
	// base's: the lifecycle takes the spec (lifecycle.Config.Spec),
	// checked now so that a task that cannot run is found before the
	// batch starts. Its rules are checked where they are parsed, below.
	checked := spec.Spec
	checked.Checks = nil
	if err := checked.Validate(); err != nil {
		return cfg, err
	}
	var under runspec.Spec
	if base.Spec != nil {
		under = *base.Spec
	}
	merged := spec.Spec.Over(under)
	cfg.Spec = &merged
	cfg, err := cfg.WithSpec()
	if err != nil {
		return cfg, err
	}
	servers, err := spec.MCPServers()
	if err != nil {
		return cfg, err
	}
	// The task's MCP servers join base's (the command's --mcp).
	cfg.MCP = append(slices.Clone(base.MCP), servers...)
	if spec.OutputSchema != "" {
		s, err := verify.LoadSchema(spec.BaseDir, spec.OutputSchema)
		if err != nil {
			return cfg, fmt.Errorf("output_schema: %w", err)
		}
		cfg.OutputSchema = s
	}
	v, err := verifierFor(spec, base.Verifier)
	if err != nil {
		return cfg, err
	}
	cfg.Verifier = v
	return cfg, nil
}

// verifierFor builds a task's verifier: its rules, and base's judge with
// its rubric.
func verifierFor(spec *taskfile.Spec, base *verify.Verifier) (*verify.Verifier, error) {
	// The claims check is off when the task says claims: false (the
	// batch's --no-claims, laid over it); base's own check, if it has
	// one, is kept.
	v := &verify.Verifier{NoClaims: spec.Claims != nil && !*spec.Claims}
	if base != nil && !v.NoClaims {
		v.Claims = base.Claims
	}
	for _, c := range spec.Checks {
		r, err := verify.ParseRule(c, spec.BaseDir)
		if err != nil {
			return nil, fmt.Errorf("check %q: %w", c, err)
		}
		v.Rules = append(v.Rules, r)
	}
	if base != nil {
		v.Rules = append(v.Rules, base.Rules...)
		if base.Judge != nil && !spec.NoJudge {
			j := *base.Judge
			if spec.Rubric != "" {
				j.Rubric = spec.Rubric
			}
			v.Judge = &j
		}
	}
	return v, nil
}
