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
// Each step's function is wrapped where it is planned, and runs in the
// process whose River worker took the step's job; the span ends once the
// step's result is settled.
func (s *scheduler) traced(fn ledger.StepFunc) ledger.StepFunc {
	if s.trace == nil {
		return fn
	}
	return func(ctx context.Context, st ledger.Step) ledger.SettleFunc {
		ctx, end := s.trace.Step(ctx, tracing.StepInfo{ID: st.ID, Role: string(st.Role), Worker: st.Worker, Task: st.Task})
		settle := fn(ctx, st)
		return func(ctx context.Context, tx *ledger.Tx) (ledger.Result, error) {
			res, err := settle(ctx, tx)
			end(string(res.State), res.Outcome, err != nil || res.State == ledger.StepFailed)
			return res, err
		}
	}
}
