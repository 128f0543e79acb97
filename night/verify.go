package night

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/verify"
)

// builderVerify is how one builder attempt is verified: the builder
// role's checks, then its judge, isolated as for `nightshift run` (the
// task, the answer and the files the attempt changed, never the
// conversation), for max_verify_rounds rounds, the answer against
// output_schema.
type builderVerify struct {
	verifier *verify.Verifier
	// judge names the judge's model under models ("" without a judge);
	// judgeLimiter paces it when it is not the attempt's own model.
	judge        string
	judgeLimiter *retry.Limiter
	judgePrice   budget.Pricer
	rounds       int
}

// builderVerify returns the verification of an attempt of worker (a
// model under models) at a task whose own verify keys are tv (nil: none):
// by default the rules the role and the task list and a judge on the
// task's or the role's judge model, else on worker itself; no_judge
// leaves the rules alone. The not-empty rule is always added by the loop.
func (p *Pipeline) builderVerify(worker string, built map[string]llm.Model, limiters map[string]*retry.Limiter, tv *ledger.TaskVerify) (builderVerify, error) {
	r := p.Roles[ledger.Builder]
	keys := taskOverRole(r.Verify, tv)
	var out builderVerify
	// claims: false goes without the claims check the run lifecycle
	// gives every attempt.
	v := &verify.Verifier{NoClaims: keys.Claims != nil && !*keys.Claims}
	for i, c := range keys.Checks {
		rule, err := verify.ParseRule(c, p.Path("."))
		if err != nil {
			where := "roles.builder.checks"
			if i >= len(r.Checks) {
				where = "the task's checks"
			}
			return out, fmt.Errorf("%s: %w", where, err)
		}
		v.Rules = append(v.Rules, rule)
	}
	out.verifier, out.rounds = v, keys.MaxVerifyRounds
	if keys.NoJudge {
		return out, nil
	}
	judge := r.JudgeModel
	if tv != nil && tv.JudgeModel != "" {
		judge = tv.JudgeModel
	}
	name := cmp.Or(judge, worker)
	m := built[name]
	if m == nil {
		return out, fmt.Errorf("roles.builder: the judge's model %q was not built", name)
	}
	v.Judge = &verify.Judge{Model: m, ModelName: p.ModelName(name), Rubric: keys.Rubric}
	out.judge, out.judgePrice = name, p.Pricer(name)
	if name != worker {
		out.judgeLimiter = limiters[name]
	}
	return out, nil
}

// taskOverRole is the verify keys of an attempt: the task's (tv) over the
// builder role's: its checks after the role's, its rubric, claims, judge
// model and rounds where it sets them, and no_judge when either says it
// (a task that names a judge model is judged).
func taskOverRole(role runspec.Verify, tv *ledger.TaskVerify) runspec.Verify {
	if tv == nil {
		return role
	}
	out := role
	out.Checks = append(slices.Clone(role.Checks), tv.Checks...)
	out.Rubric = cmp.Or(tv.Rubric, role.Rubric)
	if tv.Claims != nil {
		out.Claims = tv.Claims
	}
	out.MaxVerifyRounds = cmp.Or(tv.MaxVerifyRounds, role.MaxVerifyRounds)
	out.NoJudge = tv.NoJudge || role.NoJudge && tv.JudgeModel == ""
	return out
}

// builderRun puts what the builder role's spec (cfg.Spec, the
// attempt's) names into an attempt's config, the task's own verify keys
// (tv, nil for none) over the role's: its verification (when verified,
// the caller giving none of its own) and its rounds, and its output
// schema as read when the pipeline was loaded (or the task added).
func (p *Pipeline) builderRun(cfg *lifecycle.Config, worker string, built map[string]llm.Model, limiters map[string]*retry.Limiter, verified bool, tv *ledger.TaskVerify) error {
	r := p.Roles[ledger.Builder]
	if verified {
		bv, err := p.builderVerify(worker, built, limiters, tv)
		if err != nil {
			return err
		}
		cfg.Verifier, cfg.JudgeLimiter, cfg.JudgePrice = bv.verifier, bv.judgeLimiter, bv.judgePrice
		cfg.Spec.MaxVerifyRounds = bv.rounds
		if bv.judge != "" {
			cfg.Start = append(cfg.Start, agent.StartField{Key: "judge", Value: cmp.Or(p.ModelName(bv.judge), bv.judge)})
		}
	}
	cfg.OutputSchema = r.schema
	if tv != nil && len(tv.Schema) > 0 {
		res, err := verify.ResolveSchema(tv.Schema)
		if err != nil {
			return fmt.Errorf("the task's output_schema: %w", err)
		}
		cfg.OutputSchema = res
	}
	return nil
}

// YAMLKeys are the keys a role takes, for the message of one it does not
// (runspec.KeyLister).
func (*RoleSpec) YAMLKeys() []string {
	return append([]string{"models", "prompt", "ceiling"}, runspec.RoleKeys()...)
}

// attemptRecord is what a builder attempt of an earlier version recorded
// in its checkpoint (lifecycle.Config.Settings), before the lifecycle
// kept the spec itself (lifecycle.Checkpoint.Spec).
type attemptRecord struct {
	Spec runspec.Spec `json:"spec"`
}

// recordedSpec lays the spec an interrupted attempt recorded over cfg,
// for the attempt that continues it: the limits it started with, not the
// pipeline's of tonight; its gate rules and its commands' confinement
// stay tonight's (an earlier version recorded the spec without them), as
// does the model's name.
func recordedSpec(cfg *lifecycle.Config, ck *lifecycle.Checkpoint) {
	var rec runspec.Spec
	switch {
	case ck.Spec != nil:
		rec = ck.Spec.Clone()
	default:
		var old attemptRecord
		if len(ck.Settings) == 0 || json.Unmarshal(ck.Settings, &old) != nil {
			return // an attempt of a version that recorded none: tonight's spec
		}
		rec = old.Spec.Clone()
	}
	if cfg.Spec != nil {
		now := cfg.Spec
		rec.Approve, rec.Sandbox, rec.SandboxNet, rec.Env, rec.CommandTimeout = now.Approve, now.Sandbox, now.SandboxNet, now.Env, now.CommandTimeout
		rec.ModelName = now.ModelName
	}
	cfg.Spec = &rec
}
