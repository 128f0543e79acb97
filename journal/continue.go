package journal

import (
	"fmt"
	"os"
	"path/filepath"
)

// AttachOver begins run runID's journal over ws (as Attach does) in a
// workspace where earlier runs were suspended and left their journals
// pending: the new run continues their work on the workspace as they left
// it. The Tx then ends all of them together. Commit keeps every change and
// drops the new journal first and theirs after it (a crash in between
// leaves their journals, whose rollback is a consistent state: the
// workspace as it was before the first of them). Rollback undoes the new
// run and then theirs, newest first, as Recover would. Suspend leaves them
// all pending, to be continued again or recovered.
//
// With no journal pending it is Attach. A live run in the workspace is
// still refused with ErrBusy.
func AttachOver(ws Workspace, stateDir, runID string) (*Tx, error) {
	over, err := Pending(stateDir)
	if err != nil {
		return nil, err
	}
	if len(over) == 0 {
		return Attach(ws, stateDir, runID)
	}
	// A pending journal makes Begin refuse; the runs are known and are
	// being continued on purpose, so the check is done here, without
	// them, and the new journal is created beside them.
	_, live, err := scan(stateDir)
	if err != nil {
		return nil, err
	}
	if len(live) > 0 {
		return nil, fmt.Errorf("%w (run %s)", ErrBusy, live[0])
	}
	j, err := beginBeside(ws.Dir(), stateDir, runID)
	if err != nil {
		return nil, err
	}
	ws.SetGuard(j.Before)
	ws.SetAfter(j.After)
	return &Tx{j: j, over: over, root: ws.Dir(), stateDir: stateDir}, nil
}

// Over returns the suspended runs the Tx continues, newest first.
func (tx *Tx) Over() []string { return append([]string(nil), tx.over...) }

// beginBeside is Begin without its check for other journals.
func beginBeside(root, stateDir, runID string) (*Journal, error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	absState, err := filepath.Abs(stateDir)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	r, err := os.OpenRoot(absRoot)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	j, err := create(r, absRoot, absState, runID)
	if err != nil {
		r.Close()
		return nil, err
	}
	return j, nil
}

// keepOver drops the journals of the continued runs, keeping their
// changes: the run that continued them kept its own.
func (tx *Tx) keepOver() error {
	for _, run := range tx.over {
		if err := dropDir(filepath.Join(journalsDir(tx.stateDir), run)); err != nil {
			return fmt.Errorf("journal: drop continued run %s: %w", run, err)
		}
	}
	return nil
}

// rollbackOver undoes the continued runs after the run that continued
// them was undone, newest first.
func (tx *Tx) rollbackOver(rep Report) (Report, error) {
	if len(tx.over) == 0 {
		return rep, nil
	}
	more, err := Recover(tx.root, tx.stateDir)
	rep.merge(more)
	return rep, err
}
