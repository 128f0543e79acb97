package callstack

import (
	"context"

	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/fallback"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
)

// Config is one model's call stack. Model is required; every other zero
// field leaves its layer out.
type Config struct {
	// Model answers the calls. It must not retry on its own.
	Model llm.Model
	// Retry is the retry policy, its Limiter the model's pacing; the zero
	// Policy is the defaults (3 retries). NoRetry leaves the layer out.
	Retry   retry.Policy
	NoRetry bool
	// Meter counts the calls and keeps the budget, Price prices them;
	// nil leaves the layer out.
	Meter *budget.Meter
	Price budget.Pricer
	// Second, when set, is the fallback model (fallback.Config says when
	// a call goes to it, and its rest).
	Second *Second
	// Observe, when set, wraps the whole stack: a trace's span.
	Observe func(llm.Model) llm.Model
}

// Second is the fallback model of a stack, behind a retry layer and the
// meter of its own.
type Second struct {
	Model llm.Model
	// Limiter paces it when it calls under another credential; nil keeps
	// the primary's.
	Limiter *retry.Limiter
	// Breaker is the circuit breaker of its endpoint; nil: none. Never
	// the primary's: a fallback is there for when the primary's endpoint
	// is down, and must not wait on its breaker.
	Breaker *breaker.Breaker
	// Price prices its calls.
	Price budget.Pricer
	// Config says when a call goes to it, the models' names, the
	// primary's rest and who hears of each fallback.
	Config fallback.Config
	// Answered, when set, is called each time it answers a call.
	Answered func()
}

// Build stacks c's layers in the package's one order.
func Build(c Config) llm.Model {
	s := c.Second
	if s != nil && s.Model == nil {
		s = nil
	}
	primary := c.Retry
	if s != nil {
		// The primary does not wait on its open breaker: the fallback,
		// on its own endpoint, takes the call (fallback.Unavailable).
		primary.FailOnOpen = true
	}
	m := c.layers(c.Model, primary, c.Price)
	if s != nil {
		p := c.Retry
		if s.Limiter != nil {
			p.Limiter = s.Limiter
		}
		p.Breaker, p.FailOnOpen = s.Breaker, false
		second := c.layers(s.Model, p, s.Price)
		if s.Answered != nil {
			inner := second
			second = llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
				resp, err := inner.Generate(ctx, req)
				if err == nil {
					s.Answered()
				}
				return resp, err
			})
		}
		m = fallback.New(m, second, s.Config)
	}
	if c.Observe != nil {
		m = c.Observe(m)
	}
	return m
}

// layers is retry, then the meter, around m.
func (c Config) layers(m llm.Model, p retry.Policy, price budget.Pricer) llm.Model {
	if !c.NoRetry {
		m = retry.Wrap(m, p)
	}
	if c.Meter != nil {
		m = c.Meter.Model(m, price)
	}
	return m
}
