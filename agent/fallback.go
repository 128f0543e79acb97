package agent

import (
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/fallback"
	"github.com/nightshift-dev/nightshift/internal/callstack"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/verify"
)

// stack puts m, one of the run's models, behind the run's call stack, in
// the one order of package callstack: the retry layer of p (a retry
// event for each retry), the run's meter at price, the run's fallback
// model when there is one (behind a retry layer and the meter of its
// own, at its own price and under its own credential; a call it takes is
// a fallback event), and the Observer's span for role. name is the model
// name m's requests carry ("" keeps the request's: the judge's);
// answered, when not nil, is set each time the fallback answers (the
// worker's turns are priced at the price of the model that answered
// them); rest is the primary's rest, shared by the models whose primary
// is one model (nil: a rest of its own).
func (r *run) stack(m llm.Model, p retry.Policy, price budget.Pricer, name string, answered *bool, rest *fallback.Rest, role string) llm.Model {
	c := callstack.Config{Model: m, Retry: r.withRetryEvents(p), Meter: r.meter, Price: price,
		Observe: func(m llm.Model) llm.Model { return r.observe(m, role) }}
	if fb := r.cfg.Fallback; fb != nil && fb.Model != nil {
		c.Second = &callstack.Second{Model: fb.Model, Limiter: fb.Limiter, Breaker: fb.Breaker, Price: fb.Price,
			Config: fallback.Config{
				Primary: name, Fallback: fb.ModelName, OnQuota: fb.OnQuota, Cooldown: fb.Cooldown, Clock: r.cfg.Clock, Rest: rest,
				OnFallback: func(e fallback.Event) { r.emit(e.Event()) },
			}}
		if answered != nil {
			c.Second.Answered = func() { *answered = true }
		}
	}
	return callstack.Build(c)
}

// modelOf names the model that answered resp, for the turn event: as the
// provider reports it, else as the run asked for it.
func (r *run) modelOf(resp *llm.Response) string {
	switch {
	case resp.Model != "":
		return resp.Model
	case r.byFallback:
		return r.cfg.Fallback.ModelName
	}
	return r.cfg.l.modelName
}

// priceOf prices a worker turn's usage at the price of the model that
// answered it.
func (r *run) priceOf(u llm.Usage) models.Cost {
	price := r.cfg.Price
	if r.byFallback {
		price = r.cfg.Fallback.Price
	}
	if price == nil {
		return models.Unknown
	}
	return price(u)
}

// judgeRest is the rest the judge's calls share with the worker's: the
// worker's own when the judge is the worker's model (by name, as each
// names its requests' model), so that a primary resting after the
// worker's calls failed is not called for the judge's either, through
// all its retries; nil (a rest of its own) for another model.
func (r *run) judgeRest(j *verify.Judge) *fallback.Rest {
	if j.ModelName != "" && j.ModelName == r.cfg.l.modelName {
		return r.rest
	}
	return nil
}
