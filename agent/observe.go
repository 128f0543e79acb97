package agent

import (
	"context"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
)

// Observer watches a run's calls as they happen, for traces (package
// tracing gives one on OpenTelemetry). Model and Tool are called as a
// call begins; each returns the context the call runs in (its span's)
// and the function the loop calls when it ends.
type Observer interface {
	// Model is a model call of the run, the worker's or the judge's
	// (role "worker" or "judge"), its retries included.
	Model(ctx context.Context, role string, req *llm.Request) (context.Context, func(*llm.Response, error))
	// Tool is a tool call, from before the gate decides on it (a
	// person's wait is inside) to its result. class is empty for a tool
	// the run does not have.
	Tool(ctx context.Context, use llm.Block, class tool.Class) (context.Context, func(tool.Result))
	// Event is each event of the run, with the context of the innermost
	// call under way when it happened: a retry's is the call it retries.
	Event(ctx context.Context, e event.Event)
}

// The roles of a run's model calls, for an Observer.
const (
	RoleWorker = "worker"
	RoleJudge  = "judge"
)

// observed is a model whose calls an Observer sees, outside the retry
// layer: one call, however many attempts it took.
type observed struct {
	m    llm.Model
	r    *run
	role string
}

func (o observed) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	ctx, end := o.r.cfg.Observer.Model(ctx, o.role, req)
	prev := o.r.inner
	o.r.inner = ctx
	defer func() { o.r.inner = prev }()
	resp, err := o.m.Generate(ctx, req)
	end(resp, err)
	return resp, err
}

// observe puts m behind the run's Observer, when it has one.
func (r *run) observe(m llm.Model, role string) llm.Model {
	if r.cfg.Observer == nil {
		return m
	}
	return observed{m: m, r: r, role: role}
}

// observeTool opens a tool call's span; the returned function closes it.
func (r *run) observeTool(ctx context.Context, u llm.Block, class tool.Class) (context.Context, func(tool.Result)) {
	if r.cfg.Observer == nil {
		return ctx, func(tool.Result) {}
	}
	ctx, end := r.cfg.Observer.Tool(ctx, u, class)
	prev := r.inner
	r.inner = ctx
	return ctx, func(res tool.Result) {
		r.inner = prev
		end(res)
	}
}
