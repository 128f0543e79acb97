package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/fallback"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
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

// ErrTimeout is the cause of a run's context once its Timeout passed.
var ErrTimeout = errors.New("the run's time limit passed")

// run is the state of one run.
type run struct {
	cfg   Config
	task  string
	msgs  []llm.Message
	res   *Result
	model llm.Model
	judge *verify.Verifier
	meter *budget.Meter
	// ctx is the run's context: the caller's, ended by Timeout as well.
	ctx context.Context
	// maxTok is the next call's output cap, cuts the max_tokens cuts in a
	// row, text the free text stitched from cut replies so far.
	maxTok int
	cuts   int
	text   strings.Builder
	loop   Loop
	// changed is the files a resumed run had changed before, for the
	// judge (the workspace's own list starts empty with each Run).
	changed []string
	// ran is the run's tool calls other than the file tools, for the
	// claims check (verify.Input.Ran); a resumed run's go on from its
	// state.
	ran []verify.Ran
	// byFallback is true when the fallback model answered the worker's
	// last call.
	byFallback bool
	// rest is the worker's primary's rest (with Config.Fallback), which
	// the judge's calls share when the judge is the worker's model.
	rest *fallback.Rest
	// window is the context window compaction keeps the history
	// within: the spec's ContextWindow, or a smaller one the server showed
	// (window.go). calib calibrates the estimate of a call's prompt on
	// what the server counted; resent is true once the request made
	// after an overflow's compaction was sent, until a call is answered.
	// sentCap and sentPrompt are the output cap the last worker call was
	// sent with and its prompt as estimated.
	window     int
	calib      calibration
	resent     bool
	sentCap    int
	sentPrompt int64
	// compactions counts the compactions, resultsCut the tool results
	// cut (read_result is a tool from the first).
	compactions int
	resultsCut  int
	// cutIDs is, by tool-use ID, the suffix the next result cut under
	// it may take (freeResultID).
	cutIDs map[string]int
	// nextChars is the next worker call's characters
	// (llm.Request.Chars), when compact counted them already; -1 when
	// not. Counting walks the whole conversation: once a step is enough.
	nextChars int64
	// inner is the context of the innermost call under way, for the
	// Observer's events (see observe.go).
	inner context.Context
	// base is what a shared meter (Config.Meter) had spent before this
	// run: the run's own spend is what it spent since.
	base budget.Spend
}

// Run runs the task to exactly one outcome. It never panics on a
// provider's, a tool's or a model's failure; those are outcomes. With
// Config.Resume set it goes on from that State instead, and task is only
// what the verifier and the record are told.
func Run(ctx context.Context, cfg Config, task string) *Result {
	cfg = cfg.withDefaults()
	r := &run{
		cfg:       cfg,
		task:      task,
		res:       &Result{RunID: cfg.RunID, FailsByCheck: map[string]int{}},
		maxTok:    cfg.l.maxTokens,
		window:    cfg.l.window,
		inner:     ctx,
		nextChars: -1,
		rest:      &fallback.Rest{},
	}
	if cfg.Fallback != nil && cfg.Fallback.Rest != nil {
		r.rest = cfg.Fallback.Rest
	}
	if cfg.l.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = clock.WithTimeout(ctx, cfg.Clock, cfg.l.timeout, ErrTimeout)
		defer cancel()
	}
	r.ctx = ctx
	var spent budget.Spend
	if st := cfg.Resume; st != nil {
		r.restore(st)
		spent = st.Spent
	}
	r.meter = budget.NewMeter(cfg.l.budget, spent)
	if cfg.Meter != nil {
		r.meter, r.base = cfg.Meter, cfg.Meter.Spent()
	}
	r.spent()
	if cfg.Model == nil {
		return r.end(Failed, errNoModel.Error(), errNoModel)
	}
	r.model = r.stack(cfg.Model, cfg.Retry, cfg.Price, cfg.l.modelName, &r.byFallback, r.rest, RoleWorker)
	r.judge = r.verifier()
	if cfg.Resume == nil {
		r.msgs = append(r.msgs, llm.UserText(task))
	}
	r.emit(event.NewStart(event.StartInfo{Run: cfg.RunID, Task: task, Model: cfg.l.modelName, MaxSteps: cfg.l.maxSteps,
		Fields: cfg.Start, Resumed: cfg.Resume != nil, FromStep: r.res.Steps}))
	if r.resultsCut > 0 {
		// The resumed history names read_result in its notes.
		if err := r.addReadResult(); err != nil {
			r.emit(event.NewCut(event.CutInfo{Err: err}))
		}
	}
	if p := cfg.Resume; p != nil && p.Pending != nil {
		if out := r.finishPending(ctx, p.Pending); out != nil {
			return out
		}
	}
	return r.steps(ctx)
}

// restore takes up a saved state.
func (r *run) restore(st *State) {
	r.msgs = slices.Clone(st.Messages)
	r.res.Steps = st.Steps
	for k, v := range st.FailsByCheck {
		r.res.FailsByCheck[k] = v
	}
	r.res.FailedChecks = st.FailedChecks
	if st.MaxTokens > 0 {
		r.maxTok = st.MaxTokens
	}
	r.cuts = st.Cuts
	r.text.WriteString(st.Text)
	r.loop = st.Loop
	r.changed = st.Changed
	r.ran = st.Ran
	r.compactions, r.resultsCut = st.Compactions, st.ResultsCut
	r.learnWindow(st.Window)
}

// state is the run's progress now.
func (r *run) state() *State {
	return &State{
		Messages: r.msgs, Steps: r.res.Steps, Spent: r.meter.Spent(),
		FailsByCheck: r.res.FailsByCheck, FailedChecks: r.res.FailedChecks,
		MaxTokens: r.maxTok, Cuts: r.cuts, Text: r.text.String(), Loop: r.loop,
		Changed: r.changedFiles(), Ran: r.ran, Compactions: r.compactions, ResultsCut: r.resultsCut,
		Window: r.learntWindow(),
	}
}

// learntWindow is the window the run learnt from its server, when it is
// not the one it was given.
func (r *run) learntWindow() int {
	if r.window != r.cfg.l.window {
		return r.window
	}
	return 0
}

// save hands the state to the checkpointer. A failure to save does not
// stop the run (it only costs the chance to resume it), but it is said.
func (r *run) save(st *State) {
	if r.cfg.Checkpoint == nil {
		return
	}
	if err := r.cfg.Checkpoint.Save(st); err != nil {
		r.emit(event.NewCheckpoint(event.CheckpointInfo{Err: err}))
	}
}

// changedFiles is every file the run changed: before a resume and since.
func (r *run) changedFiles() []string {
	var now []string
	if r.cfg.Root != nil {
		now = r.cfg.Root.Changed()
	}
	if len(r.changed) == 0 {
		return now
	}
	out := append(slices.Clone(r.changed), now...)
	slices.Sort(out)
	return slices.Compact(out)
}

// steps is the loop: a model call, its tools or its verification, again,
// until one outcome.
func (r *run) steps(ctx context.Context) *Result {
	for {
		if err := ctx.Err(); err != nil {
			return r.apiEnd(err)
		}
		if r.res.Steps >= r.cfg.l.maxSteps {
			return r.end(StepLimit, fmt.Sprintf("the step brake tripped after %d steps", r.res.Steps), nil)
		}
		r.nextChars = -1
		if out, _ := r.compact(ctx, compactAtThreshold); out != nil {
			return out
		}
		r.res.Steps++
		resp, err := r.call(ctx)
		if err != nil {
			if llm.ClassOf(err) == llm.ContextOverflow && ctx.Err() == nil {
				// The server refused the prompt as over its window: no
				// reply, so no step. The history is compacted and the
				// smaller request sent, once: a new request, not a retry
				// of the same one (issue 28).
				r.res.Steps--
				if out := r.overflow(ctx, err); out != nil {
					return out
				}
				continue
			}
			if o, _, _ := r.classify(err); o.Paused() {
				// The call was not made (budget), or was cut short and
				// its reply lost: it is no step, and a resumed run
				// makes it again.
				r.res.Steps--
			}
			return r.apiEnd(err)
		}
		r.resent = false
		r.turnEvent(resp)

		if r.fullWindow(resp, r.sentCap) {
			// The reply stopped at the window, not at its cap: a larger
			// cap cannot help, a smaller prompt can. The reply is
			// dropped and the call made again on the compacted history.
			r.cuts = 0
			if out, ok := r.compact(ctx, compactFull); out != nil {
				return out
			} else if !ok {
				return r.contextFull(resp.Usage.InputTokens, fmt.Sprintf("a reply stopped at it after %d tokens of output, %d of prompt",
					resp.Usage.OutputTokens, resp.Usage.InputTokens))
			}
			r.save(r.state())
			continue
		}
		if resp.StopReason == llm.MaxTokens {
			r.cuts++
			if r.cuts >= MaxCutsInARow {
				return r.end(Truncated, fmt.Sprintf("the output was cut off by max_tokens %d times in a row", r.cuts), nil)
			}
			r.truncated(resp)
			r.save(r.state())
			continue
		}
		r.cuts = 0

		msg := resp.Message()
		if len(msg.ToolUses()) > 0 {
			r.msgs = append(r.msgs, msg)
			if out := r.toolStep(ctx, msg.ToolUses(), nil); out != nil {
				return out
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
				r.emit(event.NewSchema(problem))
				r.msgs = append(r.msgs, llm.UserText(schemaPrefix+problem))
				r.save(r.state())
				continue
			}
		}

		if out := r.verify(ctx, answer); out != nil {
			return out
		}
		r.save(r.state())
	}
}

// toolStep runs the tool calls of the reply that ends r.msgs (done holds
// the results a resumed run had recorded already; nil for a new reply),
// feeds the results back and saves the step. It returns the result when
// the run ends here.
func (r *run) toolStep(ctx context.Context, uses []llm.Block, done []llm.Block) *Result {
	if done == nil {
		// Saved before any tool runs, so that a run that dies midway
		// knows which calls had been sent (see Checkpointer).
		st := r.state()
		st.Pending = &Pending{}
		r.save(st)
	}
	results, stop := r.runTools(ctx, uses, done)
	switch {
	case stop.parked != nil:
		r.res.Parked = stop.parked
		return r.end(Parked, fmt.Sprintf("the gate asks a person about %s; the task is parked", stop.parked.Tool), nil)
	case stop.err != nil:
		return r.apiEnd(stop.err)
	}
	results = r.cutResults(results)
	warn, loopEnd := r.checkLoop(uses, results)
	content := results
	if warn != "" {
		content = append(content, llm.Text(warn))
	}
	r.msgs = append(r.msgs, llm.Message{Role: llm.User, Content: content})
	if loopEnd != "" {
		r.emit(event.NewLoop(r.loop.Tool, r.loop.Count, true))
		return r.end(StepLimit, loopEnd, &LoopError{Tool: r.loop.Tool, Count: r.loop.Count})
	}
	r.save(r.state())
	return nil
}

// finishPending finishes the tool calls of a resumed run's last reply,
// which were running when it stopped: the recorded results stand, the
// others are run again or answered as unknown (runTools).
func (r *run) finishPending(ctx context.Context, p *Pending) *Result {
	if len(r.msgs) == 0 {
		return nil
	}
	last := r.msgs[len(r.msgs)-1]
	uses := last.ToolUses()
	if last.Role != llm.Assistant || len(uses) == 0 {
		return nil
	}
	done := p.Results
	if done == nil {
		done = []llm.Block{}
	}
	return r.toolStep(ctx, uses, done)
}

// overflow answers the server's refusal of the prompt as over its window:
// the window it names is learnt, the history compacted, and the smaller
// request sent once; the run ends context-full when compaction cannot
// make room, or when the request sent after one is refused again.
func (r *run) overflow(ctx context.Context, err error) *Result {
	prompt := r.overflowed(err, r.sentPrompt)
	if r.resent {
		return r.contextFull(prompt, fmt.Sprintf("the server refused a prompt of %d tokens again after a compaction", prompt))
	}
	r.resent = true
	out, ok := r.compact(ctx, compactOverflow)
	switch {
	case out != nil:
		return out
	case !ok:
		return r.contextFull(prompt, fmt.Sprintf("the server refused a prompt of %d tokens", prompt))
	}
	return nil
}

// call makes one worker model call through the meter and the retry
// layer, with the output cap the window leaves (room).
func (r *run) call(ctx context.Context) (*llm.Response, error) {
	req := r.request()
	chars := r.nextChars
	if chars < 0 {
		chars = req.Chars()
	}
	r.nextChars = -1
	r.sentPrompt = r.promptTokens(chars)
	req.MaxTokens = r.room(req.MaxTokens, r.sentPrompt)
	r.sentCap = req.MaxTokens
	r.byFallback = false
	resp, err := r.model.Generate(ctx, req)
	if err != nil {
		return nil, err
	}
	r.calibrate(chars, resp.Usage)
	r.res.Calls++
	r.spent()
	return resp, nil
}

// truncated handles a max_tokens cut (seed 000, section 3.2): free text is
// continued and stitched; a cut tool call or structured answer is
// regenerated whole with twice the output cap, because stitching tends to
// sew in syntax errors.
func (r *run) truncated(resp *llm.Response) {
	msg := resp.Message()
	if len(msg.ToolUses()) > 0 || r.cfg.OutputSchema != nil || r.cutToolCall(msg) {
		r.maxTok = min(r.maxTok*2, r.cfg.l.maxTokensCap)
		r.emit(event.NewTruncated(true, r.maxTok))
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
	r.emit(event.NewTruncated(false, len([]rune(part))))
}

// cutToolCall reports whether a reply cut by max_tokens is a tool call
// the server did not get to parse: when the run offers tools, a reply
// that holds a chat template's raw tool-call markup (llama.cpp sends
// `<tool_call>\n {"name":"` as the content when the cut came before the
// name was complete), or nothing at all (the same cut, streamed). Such a
// reply is regenerated with the larger cap, never continued as prose.
func (r *run) cutToolCall(msg llm.Message) bool {
	if r.cfg.Tools == nil || len(r.cfg.Tools.Specs()) == 0 {
		return false
	}
	text := msg.Text()
	return strings.TrimSpace(text) == "" || llm.HasToolCallMarkup(text)
}

// verify runs the verifier on an end of turn. It returns the final result,
// or nil when the FAIL was fed back and the loop goes on.
func (r *run) verify(ctx context.Context, answer string) *Result {
	// Never nil: this run's calls are known, even when there were none.
	in := verify.Input{Task: r.task, Answer: answer, Ran: append(make([]verify.Ran, 0, len(r.ran)), r.ran...)}
	if r.cfg.Root != nil {
		in.Dir, in.Files = r.cfg.Root.Dir(), r.cfg.Root.FS()
		in.Changed = r.changedFiles()
	}
	// The judge's usage is counted by the meter its model is behind.
	v, _, err := r.judge.Verify(ctx, in)
	r.spent()
	if err != nil {
		return r.apiEnd(fmt.Errorf("verifier: %w", err))
	}
	r.res.Answer = answer
	if v.Pass {
		r.emit(verifyEvent(v, nil))
		return r.end(Done, "the verifier passed the result", nil)
	}
	r.res.FailsByCheck[v.Check]++
	r.res.FailedChecks = checksOf(v)
	r.emit(verifyEvent(v, r.res.FailedChecks))
	fails := 0
	for _, n := range r.res.FailsByCheck {
		fails += n
	}
	switch {
	case fails > r.cfg.l.maxVerifyRounds:
		return r.end(Unverified, fmt.Sprintf("no PASS after %s; a person must look (failed: %s): %s",
			plural(fails, "verification"), strings.Join(r.res.FailedChecks, ", "), v.Reason), nil)
	case r.res.Steps >= r.cfg.l.maxSteps:
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

// verifyEvent is the verify event of verdict v, with the claims the
// claims check found.
func verifyEvent(v verify.Verdict, checks []string) event.Event {
	info := event.VerifyInfo{Pass: v.Pass, Check: v.Check, Checks: checks, Reason: v.Reason, Detail: v.Detail}
	for _, c := range v.Claims {
		info.Claims = append(info.Claims, event.ClaimInfo{Kind: c.Kind, Text: c.Text, Start: c.Start, End: c.End,
			Path: c.Path, Said: c.Said, Measured: c.Measured, Verdict: string(c.Verdict), Note: c.Fact})
	}
	return event.NewVerify(info)
}

// verifier returns the configured verifier with the not-empty rule always
// first.
func (r *run) verifier() *verify.Verifier {
	v := &verify.Verifier{Rules: []verify.Rule{verify.NotEmpty()}}
	if r.cfg.Verifier != nil {
		// The sandbox of its cmd: checks, its redactor and its claims
		// check come along.
		v.Commands, v.Redact, v.Claims = r.cfg.Verifier.Commands, r.cfg.Verifier.Redact, r.cfg.Verifier.Claims
		for _, rule := range r.cfg.Verifier.Rules {
			if rule.Name() != "not-empty" {
				v.Rules = append(v.Rules, rule)
			}
		}
		if r.cfg.Verifier.Judge != nil {
			j := *r.cfg.Verifier.Judge
			// The judge's call goes through the same retry layer, and
			// counts against the same budget.
			p := r.cfg.Retry
			if r.cfg.JudgeLimiter != nil {
				p.Limiter, p.Breaker = r.cfg.JudgeLimiter, r.cfg.JudgeBreaker
			}
			j.Model = r.stack(j.Model, p, r.cfg.JudgePrice, "", nil, r.judgeRest(&j), RoleJudge)
			v.Judge = &j
		}
	}
	return v
}

// spent copies the meter's totals into the result. A run of a model the
// model table cannot price has an unknown cost even before any call has
// been counted (it is not $0: issue 28, a run whose every call failed
// printed $0.0000 for a model without a price).
func (r *run) spent() {
	s := r.meter.Spent()
	r.res.Usage, r.res.Cost = s.Usage, s.Cost
	if r.cfg.Meter != nil {
		r.res.Usage, r.res.Cost = since(s, r.base)
	}
	if usd, ok := r.res.Cost.USD(); ok && usd == 0 && !priced(r.cfg.Price) {
		r.res.Cost = models.Unknown
	}
}

// priced reports whether price knows the model's prices.
func priced(price budget.Pricer) bool { return price != nil && price(llm.Usage{}).Known() }

// since is what was spent from base to now on a shared meter; a cost
// unknown at either end is unknown.
func since(now, base budget.Spend) (llm.Usage, models.Cost) {
	u := llm.Usage{
		InputTokens: now.Usage.InputTokens - base.Usage.InputTokens, OutputTokens: now.Usage.OutputTokens - base.Usage.OutputTokens,
		CacheWriteTokens: now.Usage.CacheWriteTokens - base.Usage.CacheWriteTokens,
		CacheReadTokens:  now.Usage.CacheReadTokens - base.Usage.CacheReadTokens,
	}
	n, okN := now.Cost.USD()
	b, okB := base.Cost.USD()
	if !okN || !okB {
		return u, models.Unknown
	}
	return u, models.USD(n - b)
}

// apiEnd ends the run on a call's error (classify).
func (r *run) apiEnd(err error) *Result {
	o, reason, err := r.classify(err)
	var ex *budget.ExceededError
	if errors.As(err, &ex) {
		r.emit(event.NewBudget(event.BudgetInfo{Limit: ex.Limit, Max: ex.Max, Spent: ex.Spent, Next: ex.Next, Unknown: ex.Unknown, Reason: reason}))
	}
	return r.end(o, reason, err)
}

// classify names the outcome of a call's error: budget when the meter
// refused the call, unavailable when the endpoint's breaker stayed open
// past the retry budget, timeout when the run's time limit stopped it,
// interrupted when the caller's context ended, api-failure otherwise.
func (r *run) classify(err error) (Outcome, string, error) {
	switch {
	case errors.Is(err, budget.ErrExceeded):
		return Budget, err.Error(), err
	case errors.Is(err, breaker.ErrUnavailable) && r.ctx.Err() == nil:
		return Unavailable, err.Error(), err
	case r.ctx.Err() != nil && errors.Is(context.Cause(r.ctx), ErrTimeout):
		return Timeout, fmt.Sprintf("the run's time limit of %s passed", r.cfg.l.timeout), ErrTimeout
	case errors.Is(err, context.Canceled) || llm.ClassOf(err) == llm.Canceled || r.ctx.Err() != nil:
		return Interrupted, "interrupted", err
	}
	return APIFailure, err.Error(), err
}

// withRetryEvents is p emitting a retry event for every retry besides
// its own OnRetry.
func (r *run) withRetryEvents(p retry.Policy) retry.Policy {
	prev := p.OnRetry
	p.OnRetry = func(a retry.Attempt) {
		if prev != nil {
			prev(a)
		}
		r.emit(a.Event())
	}
	prevBreaker := p.OnBreaker
	p.OnBreaker = func(e event.Event) {
		if prevBreaker != nil {
			prevBreaker(e)
		}
		r.emit(e)
	}
	return p
}

func (r *run) end(o Outcome, reason string, err error) *Result {
	r.res.Outcome = o
	r.res.Reason = reason
	r.res.Err = err
	if o != Done && o != Unverified {
		r.res.Answer = ""
	}
	if r.meter != nil {
		r.spent()
		r.res.State = r.state()
	}
	if r.cfg.OnEnd != nil {
		r.cfg.OnEnd(r.res)
	}
	info := event.OutcomeInfo{Outcome: string(o), Reason: reason, Steps: r.res.Steps, Usage: r.res.Usage, Cost: r.res.Cost}
	if r.cfg.Exit != nil {
		exit := r.cfg.Exit(o)
		info.Exit = &exit
	}
	r.emit(event.NewOutcome(info))
	return r.res
}

// plural returns "1 verification", "3 verifications".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
