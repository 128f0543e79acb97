package ledger

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
)

// Ledger is the durable record. It is safe for concurrent use.
type Ledger struct {
	b           backend
	owner       string
	postgres    bool
	concurrency int
	lease       time.Duration
	logger      *slog.Logger
	// wall is the clock leases are measured on.
	wall clock.Clock
	// redact is Config.Redact.
	redact func(string) string

	mu sync.Mutex
	// working is the night this process works, while Work runs.
	working *Worker
}

// Owner is this process's name in step rows and its own River queue.
func (l *Ledger) Owner() string { return l.owner }

// Postgres reports whether the ledger is on PostgreSQL.
func (l *Ledger) Postgres() bool { return l.postgres }

// Lease is how long a step may run, and how long an interrupted step
// waits for its owner, before another process may take it over.
func (l *Ledger) Lease() time.Duration { return l.lease }

// Close stops the night's River client, if one is working, and closes the
// database.
func (l *Ledger) Close(ctx context.Context) error {
	l.mu.Lock()
	w := l.working
	l.mu.Unlock()
	var err error
	if w != nil {
		err = w.Stop(ctx)
	}
	l.b.close()
	return err
}

// ErrCeiling is returned when a claim would take the role past its step
// ceiling for the night.
var ErrCeiling = errors.New("ledger: the role's step ceiling is reached")

// ErrTaken is returned when a claimed task is no longer queued: another
// worker (perhaps on another machine) claimed it first.
var ErrTaken = errors.New("ledger: the task is not queued any more")

// ErrNotFound is returned when a task, night or parked action is missing.
var ErrNotFound = errors.New("ledger: not found")

// ErrWorking is returned by Work while this ledger already works a night.
var ErrWorking = errors.New("ledger: this process already works a night")
