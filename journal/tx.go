package journal

import (
	"context"
	"sync"
)

// Workspace is what a Tx attaches to: a folder whose every change first
// asks a guard and then tells an observer (a *workspace.Root).
type Workspace interface {
	// Dir is the workspace's absolute path.
	Dir() string
	// SetGuard installs the function called before each change; its
	// error stops the change.
	SetGuard(g func(rel string) error)
	// SetAfter installs the function called after each change.
	SetAfter(f func(rel string))
}

// Tx is one run's journal used as a transaction over its workspace, in
// the shape of database/sql's Tx: Attach begins it and wires the
// workspace's hooks to it, Commit keeps the run's changes, Rollback
// undoes them, and whichever comes first ends it, so that
//
//	tx, err := journal.Attach(root, stateDir, runID)
//	if err != nil {
//		return err
//	}
//	defer tx.Rollback() // a no-op once the run committed
//	// ... the run changes the workspace ...
//	return tx.Commit()
//
// can never leave half a run behind on any path out of the function.
// Suspend ends it a third way: the journal stays pending, for a run that
// paused and will be resumed or recovered later. Its methods are safe for
// concurrent use.
type Tx struct {
	j *Journal

	mu  sync.Mutex
	end txEnd
}

// txEnd is how a Tx ended; "" while it is open.
type txEnd string

const (
	committed  txEnd = "committed"
	rolledBack txEnd = "rolled back"
	suspended  txEnd = "suspended"
)

// Attach begins the journal of run runID over ws in stateDir (as Begin
// does, refusing with a *NeedsRecoveryError or ErrBusy) and installs its
// Before and After as ws's guard and observer: from now on no change to
// ws happens before its prior state is on disk. Once the Tx has ended the
// guard refuses every change with ErrClosed, so a tool that outlives its
// run cannot write behind the journal's back.
func Attach(ws Workspace, stateDir, runID string) (*Tx, error) {
	j, err := Begin(ws.Dir(), stateDir, runID)
	if err != nil {
		return nil, err
	}
	return attach(ws, j), nil
}

// attach installs j's Before and After as ws's guard and observer and
// returns the Tx that ends them: the one sequence a new run (Attach) and
// a resumed one (Reattach) take, so neither can forget a step.
func attach(ws Workspace, j *Journal) *Tx {
	ws.SetGuard(j.Before)
	ws.SetAfter(j.After)
	// A workspace that keeps the list of what the run changed (for the
	// judge) hears what commands changed too.
	if c, ok := ws.(interface{ AddChanged(paths []string) }); ok {
		j.OnChange(c.AddChanged)
	}
	return &Tx{j: j}
}

// Commit keeps the run's changes and drops the journal. A Tx that has
// ended already returns ErrClosed.
func (tx *Tx) Commit() error {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	if tx.end != "" {
		return ErrClosed
	}
	tx.end = committed
	return tx.j.Commit()
}

// Rollback restores the workspace to its state before the run and drops
// the journal (see Journal.Rollback). On a Tx that has ended (committed,
// rolled back or suspended) it does nothing and returns an empty Report
// and no error, which is what makes `defer tx.Rollback()` safe. When the
// rollback fails the journal stays pending, released by this process, so
// that Recover can finish the work.
func (tx *Tx) Rollback() (Report, error) { return tx.RollbackContext(context.Background()) }

// RollbackContext is Rollback, stopped when ctx is done (a signal): the
// journal then stays pending for Recover, as after any failed rollback.
func (tx *Tx) RollbackContext(ctx context.Context) (Report, error) {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	if tx.end != "" {
		return Report{}, nil
	}
	tx.end = rolledBack
	rep, err := tx.j.RollbackContext(ctx)
	if err != nil {
		tx.j.suspend()
	}
	return rep, err
}

// Suspend ends the Tx leaving the journal pending: the run's changes stay
// in the workspace, undoable, and the workspace needs `nightshift
// recover` (Recover) or the run's resumption before another run may
// begin there. It is for runs that pause (a budget, a timeout, an
// interrupt) rather than fail. A Tx that has ended already returns
// ErrClosed.
func (tx *Tx) Suspend() error {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	if tx.end != "" {
		return ErrClosed
	}
	tx.end = suspended
	tx.j.suspend()
	return nil
}

// Patch is the diff of what the run changed so far (see Journal.Patch):
// call it before Rollback to keep what a failed run attempted.
func (tx *Tx) Patch() (string, error) { return tx.j.Patch() }

// PatchContext is Patch, stopped when ctx is done.
func (tx *Tx) PatchContext(ctx context.Context) (string, error) { return tx.j.PatchContext(ctx) }

// Snapshot captures the whole workspace before a danger-class tool runs
// (see Journal.Snapshot).
func (tx *Tx) Snapshot(ctx context.Context) error { return tx.j.Snapshot(ctx) }

// AfterSnapshot records what the danger-class tool left (see
// Journal.AfterSnapshot).
func (tx *Tx) AfterSnapshot() error { return tx.j.AfterSnapshot() }

// Dir returns the folder the journal is kept in.
func (tx *Tx) Dir() string { return tx.j.Dir() }

// suspend closes the journal without dropping it: its log's lock is
// released, so the journal reads as pending (Pending, Recover, Begin's
// ErrNeedsRecovery), and any later change through its hooks is refused.
func (j *Journal) suspend() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return
	}
	j.done = true
	if j.afterF != nil {
		j.afterF.Close()
	}
	j.lockF.Close()
	j.root.Close()
}
