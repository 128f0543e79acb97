package night

import (
	"cmp"
	"encoding/json"
	"fmt"

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
// model under models): by default the rules the role lists and a judge on
// the role's judge model, else on worker itself; no_judge leaves the
// rules alone. The not-empty rule is always added by the loop.
func (p *Pipeline) builderVerify(worker string, built map[string]llm.Model, limiters map[string]*retry.Limiter) (builderVerify, error) {
	r := p.Roles[ledger.Builder]
	var out builderVerify
	// claims: false goes without the claims check the run lifecycle
	// gives every attempt.
	v := &verify.Verifier{NoClaims: r.Claims != nil && !*r.Claims}
	for _, c := range r.Checks {
		rule, err := verify.ParseRule(c, p.Path("."))
		if err != nil {
			return out, fmt.Errorf("roles.builder.checks: %w", err)
		}
		v.Rules = append(v.Rules, rule)
	}
	out.verifier, out.rounds = v, r.MaxVerifyRounds
	if r.NoJudge {
		return out, nil
	}
	name := cmp.Or(r.Judge, worker)
	m := built[name]
	if m == nil {
		return out, fmt.Errorf("roles.builder: the judge's model %q was not built", name)
	}
	v.Judge = &verify.Judge{Model: m, ModelName: p.ModelName(name), Rubric: r.Rubric}
	out.judge, out.judgePrice = name, p.Pricer(name)
	if name != worker {
		out.judgeLimiter = limiters[name]
	}
	return out, nil
}

// builderRun puts the builder role's run keys into an attempt's config:
// its verification (when verified, the caller giving none of its own),
// its output schema as read when the pipeline was loaded, and its limits
// (max_tokens, loop_limit, max_calls_per_reply, context_window), keep.
func (p *Pipeline) builderRun(cfg *lifecycle.Config, worker string, built map[string]llm.Model, limiters map[string]*retry.Limiter, verified bool) error {
	r := p.Roles[ledger.Builder]
	if verified {
		bv, err := p.builderVerify(worker, built, limiters)
		if err != nil {
			return err
		}
		cfg.Verifier, cfg.JudgeLimiter, cfg.JudgePrice = bv.verifier, bv.judgeLimiter, bv.judgePrice
		cfg.MaxVerifyRounds = bv.rounds
		if bv.judge != "" {
			cfg.Start = append(cfg.Start, agent.StartField{Key: "judge", Value: cmp.Or(p.ModelName(bv.judge), bv.judge)})
		}
	}
	cfg.OutputSchema = r.schema
	// The rest of the role's spec through the one handover every run
	// takes (lifecycle.Config.SetSpec): its limits, the per-reply call
	// cap, keep. Its gate rules and its commands' variables are in the
	// builder's policy and sandbox already.
	spec := r.Spec
	spec.Approve, spec.Env = nil, nil
	return cfg.SetSpec(&spec)
}

// YAMLKeys are the keys a role takes, for the message of one it does not
// (runspec.KeyLister).
func (*RoleSpec) YAMLKeys() []string {
	return append([]string{"models", "prompt", "ceiling"}, runspec.RoleKeys()...)
}

// attemptRecord is what a builder attempt records in its checkpoint
// (lifecycle.Config.Settings): the role's run spec it started with.
type attemptRecord struct {
	Spec runspec.Spec `json:"spec"`
}

// attemptSettings records spec for an attempt's checkpoint.
func attemptSettings(spec runspec.Spec) json.RawMessage {
	data, err := json.Marshal(attemptRecord{Spec: spec})
	if err != nil {
		return nil
	}
	return data
}

// recordedSpec lays the spec an interrupted attempt recorded over cfg,
// for the attempt that continues it: the limits it started with, not the
// pipeline's of tonight.
func recordedSpec(cfg *lifecycle.Config, settings json.RawMessage) error {
	var rec attemptRecord
	if len(settings) == 0 || json.Unmarshal(settings, &rec) != nil {
		return nil // an attempt of an earlier version: tonight's spec
	}
	rec.Spec.Approve, rec.Spec.Env = nil, nil
	return cfg.SetSpec(&rec.Spec)
}
