package agent

import (
	"context"

	"github.com/nightshift-dev/nightshift/fallback"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/verify"
)

// withFallback puts m, one of the run's models already behind its retry
// layer and the meter, in front of the run's fallback model, when there
// is one: the fallback behind a retry layer and the meter of its own,
// priced at its own price and paced under its own credential. name is
// the model name m's requests carry ("" keeps the request's: the
// judge's). A call the fallback takes is a fallback event. answered, when
// not nil, is set each time the fallback answers (the worker's turns are
// priced at the price of the model that answered them). rest is the
// primary's rest, shared by the models whose primary is one model (nil:
// a rest of its own).
func (r *run) withFallback(m llm.Model, name string, answered *bool, rest *fallback.Rest) llm.Model {
	fb := r.cfg.Fallback
	if fb == nil || fb.Model == nil {
		return m
	}
	p := r.cfg.Retry
	if fb.Limiter != nil {
		p.Limiter = fb.Limiter
	}
	metered := r.meter.Model(r.withRetryEvents(fb.Model, p), fb.Price)
	second := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		resp, err := metered.Generate(ctx, req)
		if err == nil && answered != nil {
			*answered = true
		}
		return resp, err
	})
	return fallback.New(m, second, fallback.Config{
		Primary: name, Fallback: fb.ModelName, OnQuota: fb.OnQuota, Cooldown: fb.Cooldown, Clock: r.cfg.Clock, Rest: rest,
		OnFallback: func(e fallback.Event) {
			r.emit(e.Event())
		},
	})
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
	return r.cfg.ModelName
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
	if j.ModelName != "" && j.ModelName == r.cfg.ModelName {
		return r.rest
	}
	return nil
}
