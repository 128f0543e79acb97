package retry

import (
	"context"

	"github.com/nightshift-dev/nightshift/llm"
)

// model is a Model whose every Generate goes through Do.
type model struct {
	m llm.Model
	p Policy
}

var _ llm.Model = (*model)(nil)

// Wrap returns a Model whose every Generate goes through Do with p. When
// p.Limiter is set, each attempt first waits for its turn under the
// limiter and then reports the response's headers or the error back to it.
func Wrap(m llm.Model, p Policy) llm.Model { return &model{m: m, p: p} }

// Generate calls the wrapped model under the policy.
func (w *model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	lim := w.p.Limiter
	if lim == nil {
		return Do(ctx, w.p, func(ctx context.Context) (*llm.Response, error) {
			return w.m.Generate(ctx, req)
		})
	}
	est := EstimateTokens(req)
	wait := func(ctx context.Context) error { return lim.Wait(ctx, est) }
	return do(ctx, w.p, wait, func(ctx context.Context) (*llm.Response, error) {
		resp, err := w.m.Generate(ctx, req)
		if resp != nil && err == nil {
			lim.Observe(resp.Header, nil)
		} else {
			lim.Observe(nil, err)
		}
		return resp, err
	})
}
