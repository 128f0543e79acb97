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

// Wrap returns a Model whose every Generate goes through Do with p.
func Wrap(m llm.Model, p Policy) llm.Model { return &model{m: m, p: p} }

// Generate calls the wrapped model under the policy.
func (w *model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	return Do(ctx, w.p, func(ctx context.Context) (*llm.Response, error) {
		return w.m.Generate(ctx, req)
	})
}
