package batch

import (
	"context"
	"fmt"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/taskfile"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/tool/fs"
	"github.com/nightshift-dev/nightshift/verify"
	"github.com/nightshift-dev/nightshift/workspace"
)

// AgentRunner returns a RunFunc that runs each task with the agent loop,
// starting from base: every task shares base's model, retry policy (and
// so its Limiter: give every task the same one per credential), events
// and clock, and gets its own workspace, file tools and verifier.
//
// From the task's spec it takes the limits that are set (max_steps,
// max_tokens, max_verify_rounds, retries), its checks (read relative to
// the task file) and its rubric. The verifier's judge is base.Verifier's
// judge, with the task's rubric, unless the task says no_judge or base
// has none. A task whose checks do not parse ends with outcome usage. The
// spec's output_schema is not read here; set base.OutputSchema instead.
func AgentRunner(base agent.Config) RunFunc {
	return func(ctx context.Context, spec *taskfile.Spec, dir string) *agent.Result {
		root, err := workspace.Open(dir)
		if err != nil {
			return &agent.Result{Outcome: agent.Failed, Reason: err.Error(), Err: err}
		}
		defer root.Close()
		tools, err := tool.NewSet(fs.Tools(root)...)
		if err != nil {
			return &agent.Result{Outcome: agent.Failed, Reason: err.Error(), Err: err}
		}
		v, err := verifierFor(spec, base.Verifier)
		if err != nil {
			return &agent.Result{Outcome: agent.Usage, Reason: err.Error(), Err: err}
		}
		cfg := base
		cfg.Root, cfg.Tools, cfg.Verifier = root, tools, v
		cfg.RunID = "" // each task is its own run
		if spec.MaxSteps > 0 {
			cfg.MaxSteps = spec.MaxSteps
		}
		if spec.MaxTokens > 0 {
			cfg.MaxTokens = spec.MaxTokens
		}
		if spec.MaxVerifyRounds > 0 {
			cfg.MaxVerifyRounds = spec.MaxVerifyRounds
		}
		if spec.Retries != nil {
			cfg.Retry.Retries = retry.Count(*spec.Retries)
		}
		return agent.Run(ctx, cfg, spec.Task)
	}
}

// verifierFor builds a task's verifier: its rules, and base's judge with
// its rubric.
func verifierFor(spec *taskfile.Spec, base *verify.Verifier) (*verify.Verifier, error) {
	v := &verify.Verifier{}
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
