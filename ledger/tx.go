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
	// flight holds the steps in flight (running this night, and pending
	// ones of any night), once read.
	flight []Step
	read   bool
}

var inFlightSQL = hotSQL("SELECT " + stepCols + " FROM ns_steps WHERE state = ? AND night_id = ? UNION ALL SELECT " + stepCols +
	" FROM ns_steps WHERE state = ? AND pending = 1 ORDER BY id")

var tonightFailuresSQL = hotSQL("SELECT " + failureCols + " FROM ns_failures WHERE night_id = ? ORDER BY id")

// inFlight reads the steps in flight once per transaction: the claiming
// transaction needs them twice (lease takeovers, then the Handler).
func (t *Tx) inFlight(ctx context.Context) ([]Step, error) {
	if !t.read {
		// Two index lookups (ns_steps_state), not a scan of every step.
		r, err := t.q.query(ctx, inFlightSQL, Running, t.night.ID, Interrupted)
		ss, err := collect(r, err, scanStep)
		if err != nil {
			return nil, err
		}
		t.flight, t.read = ss, true
	}
	return t.flight, nil
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
	r, err := t.q.query(ctx, tonightFailuresSQL, t.night.ID)
	return collect(r, err, scanFailure)
}

// TaskFailures returns every failure charged while working on a task,
// across nights (the escalation rule reads them).
func (t *Tx) TaskFailures(ctx context.Context, task int64) ([]Failure, error) {
	return taskFailures(ctx, t.q, task)
}

// Tokens returns the tokens spent tonight, in all and per worker (Spend
// has the cache's share and the cost as well).
func (t *Tx) Tokens(ctx context.Context) (Tokens, error) {
	sp, err := t.Spend(ctx)
	return sp.tokens(), err
}

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
	return expire(ctx, t.q, t.night.ID, now, requeue, ParkDeadlineCharge)
}

// ExpireCharged is Expire with the charge of a parking deadline passed
// (the night's rules table's row for it).
func (t *Tx) ExpireCharged(ctx context.Context, now time.Time, requeue bool, charge Charge) ([]ParkedAction, error) {
	return expire(ctx, t.q, t.night.ID, now, requeue, charge)
}

// AddNote writes a note for the morning reader unless the night has it
// already; it reports whether it was new.
func (t *Tx) AddNote(ctx context.Context, n Note) (bool, error) {
	n.Night = t.night.ID
	return addNote(ctx, t.q, n)
}

// Running returns the night's steps in flight: being worked here or by
// another process, or left by a process that died (until its lease runs
// out).
func (t *Tx) Running(ctx context.Context) ([]Step, error) {
	ss, err := t.inFlight(ctx)
	var out []Step
	for _, s := range ss {
		if s.State == Running {
			out = append(out, s)
		}
	}
	return out, err
}

// Pending returns the interrupted steps, of any night, whose changes wait
// for their owner to continue them.
func (t *Tx) Pending(ctx context.Context) ([]Step, error) {
	ss, err := t.inFlight(ctx)
	var out []Step
	for _, s := range ss {
		if s.Pending {
			out = append(out, s)
		}
	}
	return out, err
}

// Wall is the wall clock leases are measured on (Config.Clock).
func (t *Tx) Wall() time.Time { return t.l.wall.Now() }

// Task returns one task, or ErrNotFound.
func (t *Tx) Task(ctx context.Context, id int64) (Task, error) { return taskByID(ctx, t.q, id) }
