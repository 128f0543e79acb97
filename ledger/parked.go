package ledger

import (
	"context"
	"fmt"
	"time"
)

const parkedCols = `id, task_id, night_id, step_id, action, reason, asked_at, deadline, decision, decided_at, used`

func scanParked(r rows) (ParkedAction, error) {
	var p ParkedAction
	var asked, deadline, decided int64
	var used int
	err := r.Scan(&p.ID, &p.Task, &p.Night, &p.Step, &p.Action, &p.Reason, &asked, &deadline, &p.Decision, &decided, &used)
	p.AskedAt, p.Deadline, p.DecidedAt, p.Used = fromMS(asked), fromMS(deadline), fromMS(decided), used != 0
	return p, err
}

// ParkedActions returns every parked action, oldest first.
func (l *Ledger) ParkedActions(ctx context.Context) ([]ParkedAction, error) {
	r, err := l.b.pool().query(ctx, "SELECT "+parkedCols+" FROM ns_parked ORDER BY id")
	return collect(r, err, scanParked)
}

// Approvals returns a task's approved actions that no step has run yet:
// the gate allows these when the same call comes again.
func (l *Ledger) Approvals(ctx context.Context, task int64) ([]ParkedAction, error) {
	return approvals(ctx, l.b.pool(), task)
}

func approvals(ctx context.Context, q querier, task int64) ([]ParkedAction, error) {
	r, err := q.query(ctx, "SELECT "+parkedCols+" FROM ns_parked WHERE task_id = ? AND decision = ? AND used = 0 ORDER BY id", task, Approved)
	return collect(r, err, scanParked)
}

// Decide answers a parked task (`nightshift task approve|deny`). An
// approval puts the task back at the front of the queue; a denial fails it
// and records why. The answer and the task's new state are written in one
// transaction.
func (l *Ledger) Decide(ctx context.Context, task int64, d Decision, at time.Time) (ParkedAction, error) {
	return l.DecideCharged(ctx, task, d, at, DeniedCharge)
}

// DecideCharged is Decide with the charge of a denial (the night's rules
// table's row for it, which a pipeline file can change).
func (l *Ledger) DecideCharged(ctx context.Context, task int64, d Decision, at time.Time, denied Charge) (ParkedAction, error) {
	if d != Approved && d != Denied {
		return ParkedAction{}, fmt.Errorf("ledger: a person approves or denies, not %q", d)
	}
	var out ParkedAction
	err := l.b.inTx(ctx, func(q querier, _ jobOps) error {
		r, err := q.query(ctx, "SELECT "+parkedCols+" FROM ns_parked WHERE task_id = ? AND decision = ? ORDER BY id DESC", task, Undecided)
		ps, err := collect(r, err, scanParked)
		if err != nil {
			return err
		}
		if len(ps) == 0 {
			return fmt.Errorf("task %d has no parked action waiting: %w", task, ErrNotFound)
		}
		out = ps[0]
		out.Decision, out.DecidedAt = d, at.UTC()
		if _, err := q.exec(ctx, "UPDATE ns_parked SET decision = ?, decided_at = ? WHERE id = ?", d, ms(at), out.ID); err != nil {
			return err
		}
		state, front := Queued, 1
		if d == Denied {
			state, front = Failed, 0
			if _, err := insertFailure(ctx, q, Failure{Night: out.Night, Step: out.Step, Task: task, Role: Builder,
				Scope: denied.Scope, Rule: denied.Rule, Reason: denied.reason("a person denied " + out.Action), Manual: true, At: at}); err != nil {
				return err
			}
		}
		_, err = q.exec(ctx, "UPDATE ns_tasks SET state = ?, front = ?, updated_at = ? WHERE id = ? AND state = ?",
			state, front, ms(at), task, Parked)
		return err
	})
	return out, err
}

// Expire settles the parked actions past their deadline at now: each one
// is marked expired, a task-scope failure records it, and its task goes
// back to the queue (requeue) or fails. It returns the expired actions.
func (l *Ledger) Expire(ctx context.Context, night int64, now time.Time, requeue bool) ([]ParkedAction, error) {
	var out []ParkedAction
	err := l.b.inTx(ctx, func(q querier, _ jobOps) error {
		var err error
		out, err = expire(ctx, q, night, now, requeue, ParkDeadlineCharge)
		return err
	})
	return out, err
}

func expire(ctx context.Context, q querier, night int64, now time.Time, requeue bool, charge Charge) ([]ParkedAction, error) {
	r, err := q.query(ctx, "SELECT "+parkedCols+" FROM ns_parked WHERE decision = ? AND deadline <= ? ORDER BY id", Undecided, ms(now))
	ps, err := collect(r, err, scanParked)
	if err != nil {
		return nil, err
	}
	state, then := Failed, "failed"
	if requeue {
		state, then = Queued, "back in the queue"
	}
	var out []ParkedAction
	for _, p := range ps {
		p.Decision, p.DecidedAt = Expired, now.UTC()
		if _, err := q.exec(ctx, "UPDATE ns_parked SET decision = ?, decided_at = ? WHERE id = ?", Expired, ms(now), p.ID); err != nil {
			return nil, err
		}
		reason := fmt.Sprintf("parked past its deadline %s waiting for approval of %s; %s", p.Deadline.Format(time.RFC3339), p.Action, then)
		if _, err := insertFailure(ctx, q, Failure{Night: night, Step: p.Step, Task: p.Task, Role: Builder,
			Scope: charge.Scope, Rule: charge.Rule, Reason: charge.reason(reason), At: now}); err != nil {
			return nil, err
		}
		if _, err := q.exec(ctx, "UPDATE ns_tasks SET state = ?, updated_at = ? WHERE id = ? AND state = ?", state, ms(now), p.Task, Parked); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
