package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrNotPending means Reattach found no pending journal of the run: it
// ended (committed, rolled back, recovered) or never began here.
var ErrNotPending = errors.New("journal: the run has no pending journal here")

// Reattach opens again the pending journal of run runID in stateDir (one
// that Suspend left, or that a dead process left) and installs it on ws,
// as Attach does: the run resumes, and its changes go on being recorded in
// the same journal, so that a rollback still restores the state before
// the run began. It refuses with a *BusyError (ErrBusy) while a run is
// alive in the workspace, with ErrNotPending when the run has no journal
// there, with a *NeedsRecoveryError when other runs left journals, and
// with an error matching ErrDamaged when the journal cannot be read in
// full or a rollback of it had begun: such a run can only be recovered.
//
// A journal whose run died while a command ran (its snapshot open) is
// closed first, as recovery would read it: every path the snapshot had
// not captured appeared while the command ran, and is recorded as created
// by the run.
func Reattach(ws Workspace, stateDir, runID string) (*Tx, error) {
	absRoot, absState, err := absPaths(ws.Dir(), stateDir)
	if err != nil {
		return nil, err
	}
	s, err := scan(absRoot, absState)
	if err != nil {
		return nil, err
	}
	if len(s.live) > 0 {
		return nil, &BusyError{Live: s.live}
	}
	var mine *found
	others := &NeedsRecoveryError{StateDir: absState}
	for _, d := range s.dead {
		if d.run == runID && !d.legacy && mine == nil {
			mine = &d
			continue
		}
		others.Runs = append(others.Runs, d.run)
		others.Journals = append(others.Journals, d.dir)
	}
	switch {
	case mine == nil:
		return nil, fmt.Errorf("%w (run %s)", ErrNotPending, runID)
	case len(others.Runs) > 0:
		return nil, others
	}
	j, err := reopen(absRoot, *mine)
	if err != nil {
		return nil, err
	}
	return attach(ws, j), nil
}

// reopen locks a pending journal and reads it back to go on from its
// last durable step.
func reopen(root string, d found) (*Journal, error) {
	lockF, err := lockDir(d.dir)
	if errors.Is(err, errLocked) {
		return nil, &BusyError{Live: []Process{{Run: d.run}}}
	}
	if err != nil {
		return nil, fmt.Errorf("journal: reattach: %w", err)
	}
	fail := func(err error) (*Journal, error) {
		lockF.Close()
		return nil, err
	}
	damaged := func(why string) (*Journal, error) {
		return fail(fmt.Errorf("%w: run %s cannot be resumed from %s: %s", ErrDamaged, d.run, d.dir, why))
	}
	if _, err := os.Lstat(filepath.Join(d.dir, decisionName)); err == nil {
		return damaged("a rollback of it had begun: finish it with nightshift recover")
	}
	s := load(d.dir, false)
	switch {
	case len(s.damage) > 0:
		return damaged(s.damage[0])
	case s.m.run != d.run || !sameFolder(s.m.root, root):
		return damaged(fmt.Sprintf("it is the journal of run %s in %s", s.m.run, s.m.root))
	case s.m.format < format:
		return damaged("an earlier version of nightshift wrote it: undo it with nightshift recover")
	}
	last, err := lastStep(s.blobs)
	if err != nil {
		return fail(fmt.Errorf("journal: reattach: %w", err))
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return fail(fmt.Errorf("journal: %w", err))
	}
	j := &Journal{root: r, rootDir: root, dir: d.dir, lockF: lockF, m: s.m, steps: last, cache: newStatCache()}
	if rel, err := filepath.Rel(root, filepath.Dir(filepath.Dir(d.dir))); err == nil && filepath.IsLocal(rel) {
		j.skip = rel
	}
	if err := j.closeSnapshot(); err != nil {
		r.Close()
		return fail(fmt.Errorf("journal: reattach: %w", err))
	}
	return j, nil
}

// lastStep is the number of the last step file in a journal's steps
// folder.
func lastStep(steps string) (int, error) {
	entries, err := readRealDir(steps)
	if err != nil {
		return 0, err
	}
	last := 0
	for _, e := range entries {
		if n, pack, ok := stepNumber(e.Name()); ok && !pack {
			last = max(last, n)
		}
	}
	return last, nil
}

// closeSnapshot ends, durably, a snapshot the run's process left open.
func (j *Journal) closeSnapshot() error {
	if !j.m.snapshotOpen {
		return nil
	}
	c := j.newCapture(context.Background())
	defer c.abort()
	err := j.captureAppeared(c)
	if err != nil {
		return err
	}
	return c.commit(record{Op: opSnapshotEnd})
}

// Adopt records the current state of paths as the state the run left
// them in, for paths changed on the run's behalf outside the workspace's
// hooks (a resumed run's tool call undone from its own journal), so that
// a rollback takes them for the run's own and restores them.
func (tx *Tx) Adopt(paths []string) {
	for _, p := range paths {
		tx.j.After(p)
	}
}
