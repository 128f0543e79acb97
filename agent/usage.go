package agent

import (
	"context"

	"github.com/nightshift-dev/nightshift/budget"
)

// runKey marks the context of a run's tool calls with the run.
type runKey struct{}

// MeterOf returns the budget meter of the run whose tool call ctx belongs
// to, nil outside one. A tool that calls models on the run's behalf (a
// subagent) runs them behind it (Config.Meter): their calls count
// against the run's budget, and in its usage and record.
func MeterOf(ctx context.Context) *budget.Meter {
	if r, ok := ctx.Value(runKey{}).(*run); ok {
		return r.meter
	}
	return nil
}
