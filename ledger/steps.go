package ledger

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Claim describes a step to start.
type Claim struct {
	Night  int64
	Role   Role
	Worker string
	// Level is the worker's index in the role's model list.
	Level int
	// Task is the task a builder step works on, or 0.
	Task int64
	// Ceiling is the role's step ceiling for the night; 0 means none.
	Ceiling int
	// At is when the step starts, by the night's clock.
	At time.Time
}

// Result is what a step did, recorded in the transaction that completes its
// River job.
type Result struct {
	// State is Finished, StepFailed or StepParked.
	State   StepState
	Outcome string
	Reason  string
	Answer  string
	Checks  []string
	Tokens  int64
	// At is when the step ended, by the night's clock.
	At time.Time
	// TaskState is the claimed task's state afterwards; empty means
	// Queued (back in the backlog, perhaps skipped tonight).
	TaskState TaskState
	// Escalate moves the claimed task to the role's next model.
	Escalate bool
	// Failures are recorded with the step; Night, Step, Task, Role,
	// Worker, Level and At default to the step's.
	Failures []Failure
	// NewTasks are the proposer's ideas.
	NewTasks []NewTask
	// Scores are the judge's scores, by task ID.
	Scores map[int64]float64
	// Park parks the claimed task with the action it asked about.
	Park *ParkedAction
	// UsedApprovals are approved parked actions this step ran.
	UsedApprovals []int64
}

// StepFunc does a step's work. It runs in a River worker; the Result it
// returns is recorded in the same transaction that completes the job.
type StepFunc func(ctx context.Context, s Step) Result

// RunStep claims a step and runs fn on it through the River queue: in one
// transaction it reserves a place under the role's ceiling, claims the task
// and writes the step's row; once that commits, it queues the step's job;
// the worker then runs fn and records its Result as it completes the job.
// RunStep returns the recorded step, or ErrCeiling or ErrTaken when the
// claim fails.
//
// The job is queued after the claim commits, not inside it, because River
// wakes its fetcher on an insert only outside a transaction: inserted
// inside, on SQLite (no LISTEN/NOTIFY) every step would wait for the next
// poll. Nothing is lost in between: a process that dies after the claim and
// before the job leaves a running step with no job, which the night's
// recovery gives back like any interrupted step.
func (l *Ledger) RunStep(ctx context.Context, c Claim, fn StepFunc) (Step, error) {
	if !c.Role.Valid() {
		return Step{}, fmt.Errorf("ledger: unknown role %q", c.Role)
	}
	if err := l.ensureStarted(ctx); err != nil {
		return Step{}, err
	}
	s := Step{Night: c.Night, Role: c.Role, Worker: c.Worker, Level: c.Level, Task: c.Task,
		Owner: l.owner, State: Running, StartedAt: c.At.UTC()}
	err := l.b.inTx(ctx, func(q querier, _ txOps) error {
		col := string(c.Role) + "_steps"
		n, err := q.exec(ctx, "UPDATE ns_nights SET "+col+" = "+col+" + 1 WHERE id = ? AND ended_at = 0 AND (? = 0 OR "+col+" < ?)",
			c.Night, c.Ceiling, c.Ceiling)
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrCeiling
		}
		if c.Task != 0 {
			n, err := q.exec(ctx, "UPDATE ns_tasks SET state = ?, front = 0, updated_at = ? WHERE id = ? AND state = ?",
				Claimed, ms(c.At), c.Task, Queued)
			if err != nil {
				return err
			}
			if n == 0 {
				return ErrTaken
			}
		}
		return q.queryRow(ctx, `INSERT INTO ns_steps (night_id, role, worker, level, task_id, owner, state, started_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			s.Night, s.Role, s.Worker, s.Level, s.Task, s.Owner, s.State, ms(c.At)).Scan(&s.ID)
	})
	if err != nil {
		return Step{}, err
	}
	r := &run{step: s, fn: fn, done: make(chan stepDone, 1)}
	// Registered before the job exists: the worker finds it at once.
	l.addRun(r)
	job, err := l.b.insertStep(ctx, StepArgs{Step: s.ID})
	if err == nil {
		// The job's ID lets recovery cancel the job of a step whose
		// process died while it ran.
		_, err = l.b.pool().exec(ctx, "UPDATE ns_steps SET job_id = ? WHERE id = ? AND job_id = 0", job, s.ID)
	}
	if err != nil {
		if l.takeRun(s.ID) != nil {
			// The job never ran: give the step back as interrupted.
			l.Interrupt(context.WithoutCancel(ctx), s, "the step's job could not be queued: "+err.Error(), c.At) //nolint:errcheck // the queueing error is the one to report
		}
		return Step{}, fmt.Errorf("ledger: queue step %d: %w", s.ID, err)
	}
	select {
	case d := <-r.done:
		return d.step, d.err
	case <-ctx.Done():
		return r.step, ctx.Err()
	}
}

// record writes a step's result inside the completing transaction.
func (l *Ledger) record(ctx context.Context, q querier, s Step, res Result) (Step, error) {
	s.State = res.State
	if s.State == "" || s.State == Running {
		s.State = Finished
	}
	s.Outcome, s.Reason, s.Answer, s.Checks, s.Tokens = res.Outcome, res.Reason, res.Answer, res.Checks, res.Tokens
	s.EndedAt = res.At.UTC()
	if _, err := q.exec(ctx, `UPDATE ns_steps SET state = ?, outcome = ?, reason = ?, answer = ?, checks = ?, tokens = ?, ended_at = ?
		WHERE id = ?`, s.State, s.Outcome, s.Reason, s.Answer, strings.Join(s.Checks, "\n"), s.Tokens, ms(res.At), s.ID); err != nil {
		return s, err
	}
	if s.Task != 0 {
		state := res.TaskState
		if state == "" {
			state = Queued
		}
		if res.Park != nil {
			state = Parked
		}
		if _, err := q.exec(ctx, "UPDATE ns_tasks SET state = ?, level = level + ?, updated_at = ? WHERE id = ?",
			state, b2i(res.Escalate), ms(res.At), s.Task); err != nil {
			return s, err
		}
	}
	for _, f := range res.Failures {
		f.Night, f.Step = s.Night, s.ID
		if f.Task == 0 {
			f.Task = s.Task
		}
		if f.Role == "" {
			f.Role = s.Role
		}
		if f.Worker == "" {
			f.Worker = s.Worker
			f.Level = s.Level
		}
		if f.At.IsZero() {
			f.At = res.At
		}
		if _, err := insertFailure(ctx, q, f); err != nil {
			return s, err
		}
	}
	for _, t := range res.NewTasks {
		if t.Source == "" {
			t.Source = string(Proposer)
		}
		if _, err := insertTask(ctx, q, t, res.At); err != nil {
			return s, err
		}
	}
	for id, score := range res.Scores {
		if _, err := q.exec(ctx, "UPDATE ns_tasks SET score = ?, scored = 1, updated_at = ? WHERE id = ?", score, ms(res.At), id); err != nil {
			return s, err
		}
	}
	if p := res.Park; p != nil && s.Task != 0 {
		if _, err := q.exec(ctx, `INSERT INTO ns_parked (task_id, night_id, step_id, action, reason, asked_at, deadline)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, s.Task, s.Night, s.ID, p.Action, p.Reason, ms(res.At), ms(p.Deadline)); err != nil {
			return s, err
		}
	}
	for _, id := range res.UsedApprovals {
		if _, err := q.exec(ctx, "UPDATE ns_parked SET used = 1 WHERE id = ?", id); err != nil {
			return s, err
		}
	}
	return s, nil
}

const stepCols = `id, night_id, role, worker, level, task_id, job_id, owner, state, outcome, reason, answer, checks, tokens, started_at, ended_at`

func scanStep(r rows) (Step, error) {
	var s Step
	var checks string
	var started, ended int64
	err := r.Scan(&s.ID, &s.Night, &s.Role, &s.Worker, &s.Level, &s.Task, &s.Job, &s.Owner, &s.State,
		&s.Outcome, &s.Reason, &s.Answer, &checks, &s.Tokens, &started, &ended)
	if checks != "" {
		s.Checks = strings.Split(checks, "\n")
	}
	s.StartedAt, s.EndedAt = fromMS(started), fromMS(ended)
	return s, err
}

// Steps returns the night's steps in the order they started.
func (l *Ledger) Steps(ctx context.Context, night int64) ([]Step, error) {
	r, err := l.b.pool().query(ctx, "SELECT "+stepCols+" FROM ns_steps WHERE night_id = ? ORDER BY id", night)
	return collect(r, err, scanStep)
}

// TaskSteps returns every step taken on a task, across nights.
func (l *Ledger) TaskSteps(ctx context.Context, task int64) ([]Step, error) {
	r, err := l.b.pool().query(ctx, "SELECT "+stepCols+" FROM ns_steps WHERE task_id = ? ORDER BY id", task)
	return collect(r, err, scanStep)
}

// Interrupt gives back a step that was running when its process died: the
// step is marked interrupted, its place under the ceiling is freed, its
// task goes back to the front of the queue and its River job is cancelled,
// all in one transaction. The caller restores the task's workspace first.
func (l *Ledger) Interrupt(ctx context.Context, s Step, reason string, at time.Time) error {
	return l.b.inTx(ctx, func(q querier, ops txOps) error {
		n, err := q.exec(ctx, "UPDATE ns_steps SET state = ?, reason = ?, ended_at = ? WHERE id = ? AND state = ?",
			Interrupted, reason, ms(at), s.ID, Running)
		if err != nil || n == 0 {
			return err
		}
		col := string(s.Role) + "_steps"
		if _, err := q.exec(ctx, "UPDATE ns_nights SET "+col+" = "+col+" - 1 WHERE id = ?", s.Night); err != nil {
			return err
		}
		if s.Task != 0 {
			if _, err := q.exec(ctx, "UPDATE ns_tasks SET state = ?, front = 1, updated_at = ? WHERE id = ? AND state = ?",
				Queued, ms(at), s.Task, Claimed); err != nil {
				return err
			}
		}
		if s.Job != 0 {
			return ops.cancelJob(ctx, s.Job)
		}
		return nil
	})
}

// Running returns the night's steps still marked running. After a crash
// these are the interrupted ones (see Interrupt).
func (l *Ledger) Running(ctx context.Context, night int64) ([]Step, error) {
	r, err := l.b.pool().query(ctx, "SELECT "+stepCols+" FROM ns_steps WHERE night_id = ? AND state = ? ORDER BY id", night, Running)
	return collect(r, err, scanStep)
}

// JobState returns the state of a step's River job ("completed",
// "cancelled", ...), for tests and the report's consistency check.
func (l *Ledger) JobState(ctx context.Context, job int64) (string, error) {
	var s string
	err := l.b.pool().queryRow(ctx, "SELECT state FROM river_job WHERE id = ?", job).Scan(&s)
	return s, err
}
