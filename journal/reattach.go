package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// ErrNotPending means Reattach found no pending journal of the run: it
// ended (committed, rolled back, recovered) or never began here.
var ErrNotPending = errors.New("journal: the run has no pending journal here")

// Reattach opens again the pending journal of run runID in stateDir (one
// that Suspend left, or that a dead process left) and installs it on ws,
// as Attach does: the run resumes, and its changes go on being recorded in
// the same journal, so that a rollback still restores the state before
// the run began. It refuses with ErrBusy while a live process holds the
// journal, with ErrNotPending when there is none, and with a
// *NeedsRecoveryError when other runs left journals in the workspace.
//
// A journal whose run died while a command ran (its snapshot open) is
// closed first, as Recover would read it: every path the snapshot had not
// captured appeared while the command ran, and is recorded as created by
// the run.
func Reattach(ws Workspace, stateDir, runID string) (*Tx, error) {
	absRoot, err := filepath.Abs(ws.Dir())
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	absState, err := filepath.Abs(stateDir)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	dead, live, err := scan(absState)
	if err != nil {
		return nil, err
	}
	switch {
	case slices.Contains(live, runID):
		return nil, fmt.Errorf("%w (run %s)", ErrBusy, runID)
	case !slices.Contains(dead, runID):
		return nil, fmt.Errorf("%w (run %s)", ErrNotPending, runID)
	case len(dead) > 1 || len(live) > 0:
		others := slices.DeleteFunc(append(dead, live...), func(r string) bool { return r == runID })
		return nil, &NeedsRecoveryError{StateDir: absState, Runs: others}
	}
	j, err := reopen(absRoot, absState, runID)
	if err != nil {
		return nil, err
	}
	ws.SetGuard(j.Before)
	ws.SetAfter(j.After)
	return &Tx{j: j}, nil
}

// reopen locks a pending journal's log and reads it back.
func reopen(root, stateDir, runID string) (*Journal, error) {
	dir := filepath.Join(journalsDir(stateDir), runID)
	logPath := filepath.Join(dir, logName)
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal: reattach: %w", err)
	}
	if err := lock(log); err != nil {
		log.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("%w (run %s)", ErrBusy, runID)
		}
		return nil, fmt.Errorf("journal: reattach: %w", err)
	}
	m, err := readLog(logPath)
	if err == nil && m.run != runID {
		err = fmt.Errorf("journal: %s is the journal of run %q", dir, m.run)
	}
	if err != nil {
		log.Close()
		return nil, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		log.Close()
		return nil, fmt.Errorf("journal: %w", err)
	}
	j := &Journal{root: r, dir: dir, log: log, m: m, blobs: filepath.Join(dir, blobsName)}
	if rel, err := filepath.Rel(root, stateDir); err == nil && filepath.IsLocal(rel) {
		j.skip = rel
	}
	if err := j.closeSnapshot(); err != nil {
		j.log.Close()
		r.Close()
		return nil, fmt.Errorf("journal: reattach: %w", err)
	}
	return j, nil
}

// closeSnapshot ends a snapshot the run's process left open, durably.
func (j *Journal) closeSnapshot() error {
	if !j.m.snapshotOpen {
		return nil
	}
	var recs []record
	err := walk(j.root, ".", j.skipped, func(rel string) error {
		if _, ok := j.m.prior[rel]; !ok {
			recs = append(recs, record{Op: opBefore, Path: rel, State: &state{Kind: absent}})
		}
		return nil
	})
	if err != nil {
		return err
	}
	recs = append(recs, record{Op: opSnapshotEnd})
	if err := appendRecords(j.log, recs, true); err != nil {
		return err
	}
	for _, r := range recs {
		j.m.apply(r)
	}
	return nil
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
