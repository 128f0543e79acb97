package ledger

import (
	"context"
	"time"
)

// Tx is one of the ledger's transactions on a night, handed to a
// Handler: the night's row is locked in it (on SQLite the whole database
// is), so everything read through it is the night's shared state as every
// process committed it, and nothing another process decides can slip in
// between a read and the step recorded with it. N processes sharing a
// night therefore decide as one process would.
type Tx struct {
	l     *Ledger
	q     querier
	ops   jobOps
	night Night
	// Continue is the interrupted step this job continues, or nil: the
	// Handler claims it (Claim.Continues) or waits.
	Continue *Step
	after    []func()
}

// openTx begins the ledger's side of a transaction on night: its row,
// locked.
func (l *Ledger) openTx(ctx context.Context, q querier, ops jobOps, night int64) (*Tx, error) {
	n, err := lockNight(ctx, q, l.b.forUpdate(), night)
	if err != nil {
		return nil, err
	}
	return &Tx{l: l, q: q, ops: ops, night: n}, nil
}

// Night is the night as this transaction sees it.
func (t *Tx) Night() Night { return t.night }

// Owner is this process's owner name.
func (t *Tx) Owner() string { return t.l.owner }

// AfterCommit runs fn once the transaction has committed (events about
// what it recorded); never if it rolls back.
func (t *Tx) AfterCommit(fn func()) { t.after = append(t.after, fn) }

func (t *Tx) runAfter() {
	for _, fn := range t.after {
		fn()
	}
	t.after = nil
}

// Failures returns tonight's failures in order: the skip list (task
// scope), the workers out (worker scope), the stops (night and system
// scope, after Night().StopMark()), and the failed steps the
// second-failure rule counts.
func (t *Tx) Failures(ctx context.Context) ([]Failure, error) {
	r, err := t.q.query(ctx, "SELECT "+failureCols+" FROM ns_failures WHERE night_id = ? ORDER BY id", t.night.ID)
	return collect(r, err, scanFailure)
}

// TaskFailures returns every failure charged while working on a task,
// across nights (the escalation rule reads them).
func (t *Tx) TaskFailures(ctx context.Context, task int64) ([]Failure, error) {
	return taskFailures(ctx, t.q, task)
}

// Tokens returns the tokens spent tonight, in all and per worker.
func (t *Tx) Tokens(ctx context.Context) (Tokens, error) { return nightTokens(ctx, t.q, t.night.ID) }

// ActiveTasks returns the tasks not yet settled (queued, claimed, parked)
// in the order the builder takes them.
func (t *Tx) ActiveTasks(ctx context.Context) ([]Task, error) { return activeTasks(ctx, t.q) }

// Tasks returns every task in the order the builder would take them.
func (t *Tx) Tasks(ctx context.Context) ([]Task, error) { return allTasks(ctx, t.q) }

// Waiting returns the parked actions no person has answered yet.
func (t *Tx) Waiting(ctx context.Context) ([]ParkedAction, error) {
	r, err := t.q.query(ctx, "SELECT "+parkedCols+" FROM ns_parked WHERE decision = ? ORDER BY id", Undecided)
	return collect(r, err, scanParked)
}

// Approvals returns a task's approved actions that no step has run yet.
func (t *Tx) Approvals(ctx context.Context, task int64) ([]ParkedAction, error) {
	return approvals(ctx, t.q, task)
}

// Expire settles the parked actions past their deadline at now (see
// Ledger.Expire).
func (t *Tx) Expire(ctx context.Context, now time.Time, requeue bool) ([]ParkedAction, error) {
	return expire(ctx, t.q, t.night.ID, now, requeue)
}

// AddNote writes a note for the morning reader unless the night has it
// already; it reports whether it was new.
func (t *Tx) AddNote(ctx context.Context, n Note) (bool, error) {
	n.Night = t.night.ID
	return addNote(ctx, t.q, n)
}
