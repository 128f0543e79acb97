package ledger

import (
	"context"
	"time"
)

// memorySchema is the task memory's table: the notes attempts at a task
// kept (a builder's remember tool), with the task, so that the next
// attempt, on any machine, starts with them. The failures charged while
// working on a task are in ns_failures already (TaskFailures).
const memorySchema = `
CREATE TABLE IF NOT EXISTS ns_task_notes (
	id {{ID}},
	task_id BIGINT NOT NULL,
	night_id BIGINT NOT NULL DEFAULT 0,
	step_id BIGINT NOT NULL DEFAULT 0,
	worker TEXT NOT NULL DEFAULT '',
	level INTEGER NOT NULL DEFAULT 0,
	text TEXT NOT NULL,
	at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS ns_task_notes_task ON ns_task_notes (task_id);
`

// TaskNote is a note an attempt at a task kept for the attempts after it.
type TaskNote struct {
	ID     int64  `json:"id"`
	Task   int64  `json:"task"`
	Night  int64  `json:"night,omitempty"`
	Step   int64  `json:"step,omitempty"`
	Worker string `json:"worker,omitempty"`
	// Level is the task's builder level when the note was kept.
	Level int       `json:"level"`
	Text  string    `json:"text"`
	At    time.Time `json:"at"`
}

// AddTaskNote keeps a note with its task. It is written at once, not
// with the step's result: a note outlives an attempt that dies.
func (l *Ledger) AddTaskNote(ctx context.Context, n TaskNote) (TaskNote, error) {
	err := l.b.pool().queryRow(ctx, `INSERT INTO ns_task_notes (task_id, night_id, step_id, worker, level, text, at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		n.Task, n.Night, n.Step, n.Worker, n.Level, n.Text, ms(n.At)).Scan(&n.ID)
	return n, err
}

// TaskNotes returns the notes kept with a task, oldest first.
func (l *Ledger) TaskNotes(ctx context.Context, task int64) ([]TaskNote, error) {
	r, err := l.b.pool().query(ctx, `SELECT id, task_id, night_id, step_id, worker, level, text, at
		FROM ns_task_notes WHERE task_id = ? ORDER BY id`, task)
	return collect(r, err, func(r rows) (TaskNote, error) {
		var n TaskNote
		var at int64
		err := r.Scan(&n.ID, &n.Task, &n.Night, &n.Step, &n.Worker, &n.Level, &n.Text, &at)
		n.At = fromMS(at)
		return n, err
	})
}
