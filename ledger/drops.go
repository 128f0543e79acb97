package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Dropped is the state of a task a person gave up (`nightshift task
// drop`): no night takes it again, and it counts as dropped, apart from
// failed — nothing failed; a person decided the work is not worth doing.
const Dropped TaskState = "dropped"

// Withdrawn is the decision recorded on a parked action whose task a
// person dropped: nobody will answer it, and no night waits for it.
const Withdrawn Decision = "withdrawn"

// dropsSchema keeps who gave up which task, when and why: the task's
// state says that it is dropped, this table what it was before.
const dropsSchema = `
CREATE TABLE IF NOT EXISTS ns_drops (
	id {{ID}},
	task_id BIGINT NOT NULL,
	night_id BIGINT NOT NULL DEFAULT 0,
	was TEXT NOT NULL,
	reason TEXT NOT NULL DEFAULT '',
	at BIGINT NOT NULL
);
`

// Drop is a task a person gave up.
type Drop struct {
	ID   int64 `json:"id"`
	Task int64 `json:"task"`
	// Night is the night open when it was dropped, or 0 between nights.
	Night int64 `json:"night,omitempty"`
	// Was is the state the task was in: queued or parked.
	Was    TaskState `json:"was"`
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}

// ErrNotDroppable says a task cannot be dropped as it stands; the
// *NotDroppableError that wraps it says why.
var ErrNotDroppable = errors.New("ledger: the task cannot be dropped")

// NotDroppableError is a drop refused: the task is settled already, or
// an attempt at it runs or waits to be continued.
type NotDroppableError struct {
	Task  int64
	State TaskState
}

func (e *NotDroppableError) Error() string {
	return fmt.Sprintf("ledger: task %d is %s: it cannot be dropped", e.Task, e.State)
}

// Unwrap makes errors.Is(err, ErrNotDroppable) hold.
func (e *NotDroppableError) Unwrap() error { return ErrNotDroppable }

// DropTask gives a task up: a queued or parked task becomes Dropped (a
// parked one's waiting action Withdrawn, so no night waits for its
// answer), in one transaction with the record of the drop. A claimed
// task (an attempt runs, or waits to be continued) and a settled one
// (done, failed, dropped) are refused with a *NotDroppableError; a task
// that does not exist is ErrNotFound. night is the night open now, or 0.
func (l *Ledger) DropTask(ctx context.Context, id, night int64, reason string, at time.Time) (Drop, error) {
	d := Drop{Task: id, Night: night, Reason: strings.TrimSpace(reason), At: at.UTC()}
	err := l.b.inTx(ctx, func(q querier, _ jobOps) error {
		t, err := taskByID(ctx, q, id)
		if err != nil {
			return err
		}
		if t.State != Queued && t.State != Parked {
			return &NotDroppableError{Task: id, State: t.State}
		}
		d.Was = t.State
		n, err := q.exec(ctx, "UPDATE ns_tasks SET state = ?, front = 0, updated_at = ? WHERE id = ? AND state = ?", Dropped, ms(at), id, t.State)
		if err != nil {
			return err
		}
		if n == 0 {
			// A night claimed it between the read and the update.
			return &NotDroppableError{Task: id, State: Claimed}
		}
		if t.State == Parked {
			if _, err := q.exec(ctx, "UPDATE ns_parked SET decision = ?, decided_at = ? WHERE task_id = ? AND decision = ?",
				Withdrawn, ms(at), id, Undecided); err != nil {
				return err
			}
		}
		return q.queryRow(ctx, "INSERT INTO ns_drops (task_id, night_id, was, reason, at) VALUES (?, ?, ?, ?, ?) RETURNING id",
			id, night, d.Was, d.Reason, ms(at)).Scan(&d.ID)
	})
	return d, err
}

// Drops returns every drop, oldest first.
func (l *Ledger) Drops(ctx context.Context) ([]Drop, error) {
	r, err := l.b.pool().query(ctx, "SELECT id, task_id, night_id, was, reason, at FROM ns_drops ORDER BY id")
	return collect(r, err, func(r rows) (Drop, error) {
		var d Drop
		var at int64
		err := r.Scan(&d.ID, &d.Task, &d.Night, &d.Was, &d.Reason, &at)
		d.At = fromMS(at)
		return d, err
	})
}
