package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Ledger is the durable record. It is safe for concurrent use.
type Ledger struct {
	b        backend
	owner    string
	postgres bool

	mu      sync.Mutex
	runs    map[int64]*run
	started bool
}

// Owner is this process's name in step rows and its River queue.
func (l *Ledger) Owner() string { return l.owner }

// Postgres reports whether the ledger is on PostgreSQL.
func (l *Ledger) Postgres() bool { return l.postgres }

// Close stops the River client, if it was started, and closes the database.
func (l *Ledger) Close(ctx context.Context) error {
	l.mu.Lock()
	started := l.started
	l.mu.Unlock()
	var err error
	if started {
		err = l.b.stop(ctx)
	}
	l.b.close()
	return err
}

// ensureStarted starts the River client the first time a step runs: a
// ledger opened only to add tasks or read a report never works jobs.
func (l *Ledger) ensureStarted(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started {
		return nil
	}
	// The client lives until Close, not until the first caller's context
	// ends.
	if err := l.b.start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("ledger: start river: %w", err)
	}
	l.started = true
	return nil
}

// run is a step waiting for its River job to be worked.
type run struct {
	step Step
	fn   StepFunc
	done chan stepDone
}

type stepDone struct {
	step Step
	err  error
}

func (l *Ledger) addRun(r *run) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runs[r.step.ID] = r
}

func (l *Ledger) takeRun(id int64) *run {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.runs[id]
	delete(l.runs, id)
	return r
}

// ErrCeiling is returned by RunStep when the role has claimed as many
// steps tonight as its ceiling allows.
var ErrCeiling = errors.New("ledger: the role's step ceiling is reached")

// ErrTaken is returned by RunStep when the task is no longer queued: another
// worker (perhaps on another machine) claimed it first.
var ErrTaken = errors.New("ledger: the task is not queued any more")

// ErrNotFound is returned when a task, night or parked action is missing.
var ErrNotFound = errors.New("ledger: not found")
