package night

import (
	"context"

	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/tracing"
)

// traced returns fn with a span around it: each step of the night is a
// trace of its own, linked to the night's span (tracing.Night.Step), and
// a builder step's run is its child. Without a tracer it returns fn.
//
// Whoever runs the night's steps calls it on each step's function, in
// the process that runs the step (a River worker's).
func (s *Scheduler) traced(fn ledger.StepFunc) ledger.StepFunc {
	if s.trace == nil {
		return fn
	}
	return func(ctx context.Context, st ledger.Step) ledger.Result {
		ctx, end := s.trace.Step(ctx, tracing.StepInfo{ID: st.ID, Role: string(st.Role), Worker: st.Worker, Task: st.Task})
		res := fn(ctx, st)
		end(string(res.State), res.Outcome, res.State == ledger.StepFailed)
		return res
	}
}
