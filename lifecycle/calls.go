package lifecycle

import (
	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/fallback"
	"github.com/nightshift-dev/nightshift/internal/callstack"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
)

// Calls is the model-call path of the calls a role makes outside a run's
// loop (the night's proposer and judge): the same retry policy, pacing
// and retry events as every call inside a run, so that a 429 there is
// waited out like anywhere else instead of charged as a failure.
type Calls struct {
	// Retry is the retry policy; the zero Policy is the defaults (3
	// retries, 1s backoff, the retry budget). Its Limiter is replaced by
	// the one Model is given.
	Retry retry.Policy
	// Events receives a retry event for each retry; default discard.
	Events event.Sink
	// Clock times the waits and stamps the events; default clock.Real{}.
	Clock clock.Clock
	// Fallback, when set, answers the calls the model cannot (package
	// fallback), behind the same retry policy and its own limiter, with a
	// fallback event for each call a failure sends there. The primary's
	// rest is Fallback.Rest, shared with the other calls and runs given
	// it; without one it lasts only the calls of the Model returned.
	// Default none.
	Fallback *agent.Fallback
	// Meter, when set, counts each call (and keeps its budget), priced
	// by Price, and the fallback's by Fallback.Price; default none.
	Meter *budget.Meter
	Price budget.Pricer
}

// Model returns m behind the call path: each Generate waits for its turn
// under lim (nil: no pacing), is retried under the policy, and reports
// each retry as a retry event of run (docs/events.md).
func (c Calls) Model(m llm.Model, lim *retry.Limiter, run string) llm.Model {
	clk := c.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	events := c.Events
	if events == nil {
		events = event.Discard
	}
	p := c.Retry
	p.Limiter = lim
	if p.Clock == nil {
		p.Clock = clk
	}
	prev := p.OnRetry
	p.OnRetry = func(a retry.Attempt) {
		if prev != nil {
			prev(a)
		}
		e := a.Event()
		e.TS, e.Run = clk.Now(), run
		events.Emit(e)
	}
	prevBreaker := p.OnBreaker
	p.OnBreaker = func(e event.Event) {
		if prevBreaker != nil {
			prevBreaker(e)
		}
		e.TS, e.Run = clk.Now(), run
		events.Emit(e)
	}
	// The one call stack (package callstack), in its one order: retry,
	// meter, fallback.
	stack := callstack.Config{Model: m, Retry: p, Meter: c.Meter, Price: c.Price}
	if fb := c.Fallback; fb != nil && fb.Model != nil {
		stack.Second = &callstack.Second{Model: fb.Model, Limiter: fb.Limiter, Breaker: fb.Breaker, Price: fb.Price, Config: fallback.Config{
			Fallback: fb.ModelName, OnQuota: fb.OnQuota, Cooldown: fb.Cooldown, Clock: clk, Rest: fb.Rest,
			OnFallback: func(e fallback.Event) {
				ev := e.Event()
				ev.TS, ev.Run = clk.Now(), run
				events.Emit(ev)
			},
		}}
	}
	return callstack.Build(stack)
}
