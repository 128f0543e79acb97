package ledger

import "context"

// The read side of the morning report (package report) and of `nightshift
// task show`, beside FailedSteps and NightSetup: queries over every night,
// which no step of a night runs.

// FinishedSteps returns the role's finished steps of every night, oldest
// first: for the builder, the attempts that ended done, and so when each
// done task was done.
func (l *Ledger) FinishedSteps(ctx context.Context, role Role) ([]Step, error) {
	return querySteps(ctx, l.b.pool(), "role = ? AND state = ?", role, Finished)
}

// ManualFailures returns the failures a person recorded (`nightshift
// task fail`, a denial), of every night and between nights, oldest
// first. One recorded while no night was open has Night 0: it belongs to
// no night, and counts like any other (the escalation rule counts it).
func (l *Ledger) ManualFailures(ctx context.Context) ([]Failure, error) {
	r, err := l.b.pool().query(ctx, "SELECT "+failureCols+" FROM ns_failures WHERE manual = 1 ORDER BY id")
	return collect(r, err, scanFailure)
}
