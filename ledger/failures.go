package ledger

import "context"

func insertFailure(ctx context.Context, q querier, f Failure) (int64, error) {
	var id int64
	err := q.queryRow(ctx, `INSERT INTO ns_failures (night_id, step_id, task_id, role, worker, level, scope, rule, reason, manual, at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		f.Night, f.Step, f.Task, f.Role, f.Worker, f.Level, f.Scope, f.Rule, f.Reason, b2i(f.Manual), ms(f.At)).Scan(&id)
	return id, err
}

// AddFailure records a failure that belongs to no step, such as a worker
// that could not be built, or a parked task past its deadline.
func (l *Ledger) AddFailure(ctx context.Context, f Failure) (Failure, error) {
	var err error
	f.ID, err = insertFailure(ctx, l.b.pool(), f)
	return f, err
}

const failureCols = `id, night_id, step_id, task_id, role, worker, level, scope, rule, reason, manual, at`

func scanFailure(r rows) (Failure, error) {
	var f Failure
	var manual int
	var at int64
	err := r.Scan(&f.ID, &f.Night, &f.Step, &f.Task, &f.Role, &f.Worker, &f.Level, &f.Scope, &f.Rule, &f.Reason, &manual, &at)
	f.Manual, f.At = manual != 0, fromMS(at)
	return f, err
}

// Failures returns the night's failures in order.
func (l *Ledger) Failures(ctx context.Context, night int64) ([]Failure, error) {
	r, err := l.b.pool().query(ctx, "SELECT "+failureCols+" FROM ns_failures WHERE night_id = ? ORDER BY id", night)
	return collect(r, err, scanFailure)
}

// TaskFailures returns every failure charged while working on a task,
// across nights (the escalation rule reads them).
func (l *Ledger) TaskFailures(ctx context.Context, task int64) ([]Failure, error) {
	return taskFailures(ctx, l.b.pool(), task)
}

func taskFailures(ctx context.Context, q querier, task int64) ([]Failure, error) {
	r, err := q.query(ctx, "SELECT "+failureCols+" FROM ns_failures WHERE task_id = ? ORDER BY id", task)
	return collect(r, err, scanFailure)
}

// Charge is how a failure the ledger records itself is charged (a parking
// deadline passed, a denial, a failure by hand): the scope and the name
// of the row of the night's rules table that charges it, and why. The
// night passes its table's row, which a pipeline file can change; the
// defaults below are the default table's.
type Charge struct {
	Scope Scope  `json:"scope"`
	Rule  string `json:"rule"`
	// Why is the row's reason; empty keeps the failure's own reason
	// alone.
	Why string `json:"why,omitempty"`
}

// The default table's charges of the failures the ledger records, for a
// caller with no rules table of its own (the forms without a Charge:
// Decide, FailTask, Expire). nightshift itself passes its night's rules
// table's (package night's Rules.Ledger): through DecideCharged,
// FailTaskCharged and Tx.ExpireCharged, and for a person's commands from
// the charges the night recorded (Setup.Charges).
var (
	ParkDeadlineCharge = Charge{Scope: TaskScope, Rule: "park-deadline"}
	DeniedCharge       = Charge{Scope: TaskScope, Rule: "denied"}
	ByHandCharge       = Charge{Scope: TaskScope, Rule: "by-hand"}
)

// reason is a failure's reason under the charge: the failure's own,
// after the row's why when it has one.
func (c Charge) reason(own string) string {
	if c.Why == "" {
		return own
	}
	return c.Why + " (" + own + ")"
}
