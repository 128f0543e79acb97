package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/verify"
)

// The harness's own messages to the worker. They are user turns, marked so
// that a person reading a transcript can tell them from the task.
const (
	continueMsg  = "[harness] Your reply was cut off by the output limit. Continue exactly where it stopped, without repeating anything."
	emptyMsg     = "(no answer)"
	notDoneMsg   = "The task is NOT done. Fix it and finish properly."
	schemaPrefix = "[harness] Your final answer must be JSON valid against the required schema. It was not: "
)

// run is the state of one run.
type run struct {
	cfg    Config
	task   string
	msgs   []llm.Message
	res    *Result
	model  llm.Model
	judge  *verify.Verifier
	maxTok int
	// text stitches free text continued after max_tokens cuts.
	text strings.Builder
	// inner is the context of the innermost call under way, for the
	// Observer's events (see observe.go).
	inner context.Context
	// delegated is the usage tools added for calls made on the run's
	// behalf (AddUsage).
	delegated delegatedUsage
}

// Run runs the task to exactly one outcome. It never panics on a
// provider's, a tool's or a model's failure; those are outcomes.
func Run(ctx context.Context, cfg Config, task string) *Result {
	cfg = cfg.withDefaults()
	r := &run{
		cfg:    cfg,
		task:   task,
		res:    &Result{RunID: cfg.RunID, FailsByCheck: map[string]int{}},
		maxTok: cfg.MaxTokens,
		inner:  ctx,
	}
	if cfg.Model == nil {
		return r.end(Failed, errNoModel.Error(), errNoModel)
	}
	r.model = r.observe(r.withRetryEvents(cfg.Model, cfg.Retry), RoleWorker)
	r.judge = r.verifier()
	r.msgs = append(r.msgs, llm.UserText(task))
	r.emit("start", fmt.Sprintf("run=%s max_steps=%d", cfg.RunID, cfg.MaxSteps), map[string]any{
		"task": task, "model": cfg.ModelName, "max_steps": cfg.MaxSteps,
	})
	return r.loop(ctx)
}

func (r *run) loop(ctx context.Context) *Result {
	cuts := 0
	for {
		if r.res.Steps >= r.cfg.MaxSteps {
			return r.end(StepLimit, fmt.Sprintf("the step brake tripped after %d steps", r.res.Steps), nil)
		}
		r.res.Steps++
		resp, err := r.call(ctx)
		if err != nil {
			return r.apiEnd(err)
		}
		r.turnEvent(resp)

		if resp.StopReason == llm.MaxTokens {
			cuts++
			if cuts >= MaxCutsInARow {
				return r.end(Truncated, fmt.Sprintf("the output was cut off by max_tokens %d times in a row", cuts), nil)
			}
			r.truncated(resp)
			continue
		}
		cuts = 0

		msg := resp.Message()
		if len(msg.ToolUses()) > 0 {
			r.msgs = append(r.msgs, msg)
			results, parked := r.runTools(ctx, msg.ToolUses())
			if parked != nil {
				r.res.Parked = parked
				return r.end(Parked, fmt.Sprintf("the gate asks a person about %s; the task is parked", parked.Tool), nil)
			}
			r.msgs = append(r.msgs, llm.Message{Role: llm.User, Content: results})
			if err := ctx.Err(); err != nil {
				return r.apiEnd(err)
			}
			continue
		}

		// End of turn: the model says it is done. That is a claim.
		answer := r.text.String() + msg.Text()
		r.text.Reset()
		if msg.Text() == "" {
			// An empty reply cannot be sent back as an empty assistant
			// turn (providers refuse it), and it must still advance the
			// conversation: record a visible placeholder.
			msg = llm.Message{Role: llm.Assistant, Content: []llm.Block{llm.Text(emptyMsg)}}
		}
		r.msgs = append(r.msgs, msg)

		if r.cfg.OutputSchema != nil {
			if problem := checkSchema(r.cfg.OutputSchema, answer); problem != "" {
				r.emit("schema", "invalid: "+problem, map[string]any{"error": problem})
				r.msgs = append(r.msgs, llm.UserText(schemaPrefix+problem))
				continue
			}
		}

		if out := r.verify(ctx, answer); out != nil {
			return out
		}
	}
}

// call makes one worker model call through the retry layer.
func (r *run) call(ctx context.Context) (*llm.Response, error) {
	req := &llm.Request{
		Model:     r.cfg.ModelName,
		System:    r.cfg.System,
		Messages:  r.msgs,
		MaxTokens: r.maxTok,
	}
	if r.cfg.Tools != nil {
		req.Tools = r.cfg.Tools.Specs()
	}
	resp, err := r.model.Generate(ctx, req)
	if err != nil {
		return nil, err
	}
	r.res.Usage = r.res.Usage.Add(resp.Usage).Add(r.delegated.take())
	return resp, nil
}

// truncated handles a max_tokens cut (seed 000, section 3.2): free text is
// continued and stitched; a cut tool call or structured answer is
// regenerated whole with twice the output cap, because stitching tends to
// sew in syntax errors.
func (r *run) truncated(resp *llm.Response) {
	msg := resp.Message()
	if len(msg.ToolUses()) > 0 || r.cfg.OutputSchema != nil {
		r.maxTok = min(r.maxTok*2, r.cfg.MaxTokensCap)
		r.emit("truncated", fmt.Sprintf("regenerate max_tokens=%d", r.maxTok), map[string]any{
			"action": "regenerate", "max_tokens": r.maxTok,
		})
		return
	}
	part := msg.Text()
	r.text.WriteString(part)
	if part == "" {
		part = emptyMsg
	}
	r.msgs = append(r.msgs,
		llm.Message{Role: llm.Assistant, Content: []llm.Block{llm.Text(part)}},
		llm.UserText(continueMsg))
	r.emit("truncated", "continue", map[string]any{"action": "continue", "chars": len([]rune(part))})
}

// verify runs the verifier on an end of turn. It returns the final result,
// or nil when the FAIL was fed back and the loop goes on.
func (r *run) verify(ctx context.Context, answer string) *Result {
	in := verify.Input{Task: r.task, Answer: answer}
	if r.cfg.Root != nil {
		in.Dir = r.cfg.Root.Dir()
		in.Changed = r.cfg.Root.Changed()
	}
	v, usage, err := r.judge.Verify(ctx, in)
	r.res.Usage = r.res.Usage.Add(usage)
	if err != nil {
		return r.apiEnd(fmt.Errorf("verifier: %w", err))
	}
	r.res.Answer = answer
	if v.Pass {
		r.emit("verify", "PASS", map[string]any{"verdict": "PASS", "check": v.Check})
		return r.end(Done, "the verifier passed the result", nil)
	}
	r.res.FailsByCheck[v.Check]++
	r.res.FailedChecks = checksOf(v)
	r.emit("verify", "FAIL: "+v.Reason, map[string]any{
		"verdict": "FAIL", "check": v.Check, "checks": r.res.FailedChecks, "reason": v.Reason,
	})
	fails := 0
	for _, n := range r.res.FailsByCheck {
		fails += n
	}
	switch {
	case fails > r.cfg.MaxVerifyRounds:
		return r.end(Unverified, fmt.Sprintf("no PASS after %s; a person must look (failed: %s): %s",
			plural(fails, "verification"), strings.Join(r.res.FailedChecks, ", "), v.Reason), nil)
	case r.res.Steps >= r.cfg.MaxSteps:
		return r.end(Unverified, fmt.Sprintf("the verifier failed the result and no step is left; a person must look (failed: %s): %s",
			strings.Join(r.res.FailedChecks, ", "), v.Reason), nil)
	}
	r.msgs = append(r.msgs, llm.UserText("[verifier] FAIL: "+v.Reason+"\n"+notDoneMsg))
	return nil
}

func checksOf(v verify.Verdict) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range v.Failures {
		if !seen[f.Check] {
			seen[f.Check] = true
			out = append(out, f.Check)
		}
	}
	if len(out) == 0 && v.Check != "" {
		out = []string{v.Check}
	}
	return out
}

// verifier returns the configured verifier with the not-empty rule always
// first.
func (r *run) verifier() *verify.Verifier {
	v := &verify.Verifier{Rules: []verify.Rule{verify.NotEmpty()}}
	if r.cfg.Verifier != nil {
		for _, rule := range r.cfg.Verifier.Rules {
			if rule.Name() != "not-empty" {
				v.Rules = append(v.Rules, rule)
			}
		}
		if r.cfg.Verifier.Judge != nil {
			j := *r.cfg.Verifier.Judge
			// The judge's call goes through the same retry layer.
			p := r.cfg.Retry
			if r.cfg.JudgeLimiter != nil {
				p.Limiter = r.cfg.JudgeLimiter
			}
			j.Model = r.observe(r.withRetryEvents(j.Model, p), RoleJudge)
			v.Judge = &j
		}
	}
	return v
}

// apiEnd ends the run on a call's error: interrupted when the context
// ended, api-failure otherwise.
func (r *run) apiEnd(err error) *Result {
	if errors.Is(err, context.Canceled) || llm.ClassOf(err) == llm.Canceled {
		return r.end(Interrupted, "interrupted", err)
	}
	return r.end(APIFailure, err.Error(), err)
}

// withRetryEvents wraps m in the retry layer, emitting a retry event for
// every retry besides the policy's own OnRetry.
func (r *run) withRetryEvents(m llm.Model, p retry.Policy) llm.Model {
	prev := p.OnRetry
	p.OnRetry = func(a retry.Attempt) {
		if prev != nil {
			prev(a)
		}
		detail, data := RetryEvent(a)
		r.emit("retry", detail, data)
	}
	return retry.Wrap(m, p)
}

// RetryEvent is the detail and the fields of the retry event of a model
// call's retry (docs/events.md): every caller that reports a model call's
// retries, the loop and the night's roles alike, reports them this way.
func RetryEvent(a retry.Attempt) (detail string, data map[string]any) {
	data = map[string]any{"attempt": a.Attempt, "wait_ms": a.Wait.Milliseconds(), "class": string(a.Class)}
	if a.Status != 0 {
		data["status"] = a.Status
	}
	if a.Err != nil {
		data["error"] = a.Err.Error()
	}
	return a.Line(), data
}

func (r *run) end(o Outcome, reason string, err error) *Result {
	r.res.Outcome = o
	r.res.Reason = reason
	r.res.Err = err
	if o != Done && o != Unverified {
		r.res.Answer = ""
	}
	r.res.Usage = r.res.Usage.Add(r.delegated.take())
	if r.cfg.OnEnd != nil {
		r.cfg.OnEnd(r.res)
	}
	u := r.res.Usage
	data := map[string]any{
		"outcome": string(o), "steps": r.res.Steps, "reason": reason,
		"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens,
	}
	if r.cfg.Exit != nil {
		data["exit"] = r.cfg.Exit(o)
	}
	r.emit("outcome", fmt.Sprintf("%s steps=%d tokens=%d in/%d out", o, r.res.Steps, u.InputTokens, u.OutputTokens), data)
	return r.res
}

// plural returns "1 verification", "3 verifications".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
