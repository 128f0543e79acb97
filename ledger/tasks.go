package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

var insertTaskSQL = hotSQL(`INSERT INTO ns_tasks (title, body, source, score, scored, state, created_at, updated_at, verify)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`)

func insertTask(ctx context.Context, q querier, t NewTask, at time.Time) (Task, error) {
	if strings.TrimSpace(t.Title) == "" {
		return Task{}, fmt.Errorf("ledger: a task needs a title")
	}
	out := Task{Title: t.Title, Body: t.Body, Source: t.Source, State: Queued, Verify: t.Verify, CreatedAt: at.UTC(), UpdatedAt: at.UTC()}
	verify := ""
	if t.Verify != nil {
		data, err := json.Marshal(t.Verify)
		if err != nil {
			return Task{}, fmt.Errorf("ledger: a task's verify keys: %w", err)
		}
		verify = string(data)
	}
	if out.Source == "" {
		out.Source = "person"
	}
	if t.Score != nil {
		out.Score, out.Scored = *t.Score, true
	}
	err := q.queryRow(ctx, insertTaskSQL,
		out.Title, out.Body, out.Source, out.Score, b2i(out.Scored), out.State, ms(at), ms(at), verify).Scan(&out.ID)
	return out, err
}

// AddTask adds a task to the backlog.
func (l *Ledger) AddTask(ctx context.Context, t NewTask, at time.Time) (Task, error) {
	return insertTask(ctx, l.b.pool(), t, at)
}

const taskCols = `id, title, body, source, score, scored, state, level, front, created_at, updated_at, verify`

func scanTask(r rows) (Task, error) {
	var t Task
	var scored, front int
	var created, updated int64
	var verify string
	err := r.Scan(&t.ID, &t.Title, &t.Body, &t.Source, &t.Score, &scored, &t.State, &t.Level, &front, &created, &updated, &verify)
	if err == nil && verify != "" {
		t.Verify = &TaskVerify{}
		if jerr := json.Unmarshal([]byte(verify), t.Verify); jerr != nil {
			err = fmt.Errorf("ledger: task %d's verify keys: %w", t.ID, jerr)
		}
	}
	t.Scored, t.Front = scored != 0, front != 0
	t.CreatedAt, t.UpdatedAt = fromMS(created), fromMS(updated)
	return t, err
}

// Task returns one task, or ErrNotFound.
func (l *Ledger) Task(ctx context.Context, id int64) (Task, error) {
	return taskByID(ctx, l.b.pool(), id)
}

func taskByID(ctx context.Context, q querier, id int64) (Task, error) {
	r, err := q.query(ctx, "SELECT "+taskCols+" FROM ns_tasks WHERE id = ?", id)
	ts, err := collect(r, err, scanTask)
	if err != nil {
		return Task{}, err
	}
	if len(ts) == 0 {
		return Task{}, fmt.Errorf("task %d: %w", id, ErrNotFound)
	}
	return ts[0], nil
}

// Tasks returns every task, in the order the builder would take them:
// front first, then by score (best first), then oldest first.
func (l *Ledger) Tasks(ctx context.Context) ([]Task, error) { return allTasks(ctx, l.b.pool()) }

func allTasks(ctx context.Context, q querier) ([]Task, error) {
	r, err := q.query(ctx, "SELECT "+taskCols+" FROM ns_tasks ORDER BY front DESC, scored DESC, score DESC, id")
	return collect(r, err, scanTask)
}

// Backlog returns the queued tasks in the order the builder takes them.
func (l *Ledger) Backlog(ctx context.Context) ([]Task, error) {
	r, err := l.b.pool().query(ctx, "SELECT "+taskCols+" FROM ns_tasks WHERE state = ? ORDER BY front DESC, scored DESC, score DESC, id", Queued)
	return collect(r, err, scanTask)
}

// FailTask records a failure by hand (`nightshift task fail`): it is
// charged to the task, at its current level, and counted like any other.
// When night is not 0 the task is also on that night's skip list.
func (l *Ledger) FailTask(ctx context.Context, id, night int64, reason string, at time.Time) (Failure, error) {
	return l.FailTaskCharged(ctx, id, night, reason, at, ByHandCharge)
}

// FailTaskCharged is FailTask with the charge of a failure by hand (the
// night's rules table's row for it).
func (l *Ledger) FailTaskCharged(ctx context.Context, id, night int64, reason string, at time.Time, charge Charge) (Failure, error) {
	t, err := l.Task(ctx, id)
	if err != nil {
		return Failure{}, err
	}
	if strings.TrimSpace(reason) == "" {
		return Failure{}, errors.New("ledger: a failure needs a reason")
	}
	f := Failure{Night: night, Task: id, Role: Builder, Level: t.Level, Scope: charge.Scope,
		Rule: charge.Rule, Reason: charge.reason(reason), Manual: true, At: at.UTC()}
	f.ID, err = insertFailure(ctx, l.b.pool(), f)
	return f, err
}

// SetTaskState sets a task's state by hand (for example Done or Failed).
func (l *Ledger) SetTaskState(ctx context.Context, id int64, s TaskState, at time.Time) error {
	n, err := l.b.pool().exec(ctx, "UPDATE ns_tasks SET state = ?, updated_at = ? WHERE id = ?", s, ms(at), id)
	if err == nil && n == 0 {
		err = fmt.Errorf("task %d: %w", id, ErrNotFound)
	}
	return err
}

// ActiveTasks returns the tasks not yet settled (queued, claimed, parked),
// in the order the builder takes them: what a scheduler reads before each
// step, without the history of done and failed tasks.
func (l *Ledger) ActiveTasks(ctx context.Context) ([]Task, error) {
	return activeTasks(ctx, l.b.pool())
}

var activeTasksSQL = hotSQL("SELECT " + taskCols + " FROM ns_tasks WHERE state IN (?, ?, ?) ORDER BY front DESC, scored DESC, score DESC, id")

func activeTasks(ctx context.Context, q querier) ([]Task, error) {
	r, err := q.query(ctx, activeTasksSQL, Queued, Claimed, Parked)
	return collect(r, err, scanTask)
}
