package journal

import (
	"context"
	"path/filepath"
)

// Rollback restores the workspace to its state before the run and drops
// the journal: changed files get their content and mode back, created
// paths are removed, deleted ones recreated. A path that something else
// changed during the run is left as it is and reported as a conflict.
// Call Patch first if the attempt should be kept for a person. On an error
// the journal stays, and Recover can finish the work later, from where
// this one stopped.
func (j *Journal) Rollback() (Report, error) { return j.RollbackContext(context.Background()) }

// RollbackContext is Rollback, stopped when ctx is done (a signal): the
// journal then stays pending, as after any error, for Recover to finish.
func (j *Journal) RollbackContext(ctx context.Context) (Report, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return Report{}, ErrClosed
	}
	j.lookOwn()
	t := &target{ctx: ctx, root: j.root, dir: j.dir, blobs: j.stepsDir(), m: j.m, skip: j.skipped, cache: j.cache, protected: protectedIn(ctx, j.rootDir)}
	rep, err := t.rollback()
	if err != nil {
		return rep, err
	}
	if !rep.Complete() {
		// Saved content could not be read back: the journal keeps what
		// is left of it for a person (nightshift recover, --discard).
		return rep, &DamagedError{Runs: []string{j.m.run}, Journals: []string{j.dir}}
	}
	return rep, j.drop()
}

func (j *Journal) stepsDir() string { return filepath.Join(j.dir, stepsName) }
