package journal

import (
	"context"
	"fmt"
	"maps"
	"slices"
)

// Snapshot captures every path of the workspace not captured yet, so that
// what a danger-class tool (a command, which may touch any file) changes
// is rolled back too. Call it before the tool runs and AfterSnapshot when
// it returns. Until AfterSnapshot, any path that appears in the workspace
// counts as made by the run: if the process dies while the command runs,
// recovery removes it.
func (j *Journal) Snapshot(ctx context.Context) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return ErrClosed
	}
	c := j.newCapture()
	defer c.abort()
	err := walk(j.root, ".", j.skipped, func(rel string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if c.has(rel) {
			return nil
		}
		st, err := c.save(rel)
		if err != nil {
			return fmt.Errorf("journal: save %s: %w", rel, err)
		}
		c.add(rel, st)
		return nil
	})
	if err != nil {
		return fmt.Errorf("journal: snapshot: %w", err)
	}
	return c.commit(record{Op: opSnapshot})
}

// AfterSnapshot records what the tool left: the paths it created (they did
// not exist before) and the state of every captured path, so that rollback
// can tell the run's changes from later ones made by something else.
func (j *Journal) AfterSnapshot() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return ErrClosed
	}
	c := j.newCapture()
	defer c.abort()
	err := walk(j.root, ".", j.skipped, func(rel string) error {
		if !c.has(rel) {
			c.add(rel, state{Kind: absent})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("journal: after snapshot: %w", err)
	}
	var afters []record
	for _, p := range append(j.m.paths(), slices.Sorted(maps.Keys(c.seen))...) {
		if r, ok := j.afterRecord(p); ok {
			afters = append(afters, r)
		}
	}
	return c.commit(append(afters, record{Op: opSnapshotEnd})...)
}

// afterRecord returns the after record of p; a path that cannot be read
// gets none, and counts as the run's change.
func (j *Journal) afterRecord(p string) (record, bool) {
	st, err := stat(j.root, p, nil)
	if err != nil {
		return record{}, false
	}
	return record{Op: opAfter, Path: p, State: &st}, true
}
