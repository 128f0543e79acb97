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

// FailuresBetweenNights returns the failures recorded while no night was
// open (`nightshift task fail` between nights: night 0), oldest first.
// They belong to no night, and count like any other.
func (l *Ledger) FailuresBetweenNights(ctx context.Context) ([]Failure, error) {
	r, err := l.b.pool().query(ctx, "SELECT "+failureCols+" FROM ns_failures WHERE night_id = 0 ORDER BY id")
	return collect(r, err, scanFailure)
}
