package journal

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/nightshift-dev/nightshift/internal/crashpoint"
)

// Snapshot captures every path of the workspace not captured yet, so that
// what a danger-class tool (a command, which may touch any file) changes
// is rolled back too, and notes every path's state, so that AfterSnapshot
// can tell what the tool changed. Call it before the tool runs and
// AfterSnapshot when it returns.
//
// Until AfterSnapshot, the snapshot is the truth: if the process dies
// while the command runs, recovery puts every path back as it was before
// the run, whatever earlier steps left, and removes any path that
// appeared.
func (j *Journal) Snapshot(ctx context.Context) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return ErrClosed
	}
	j.lookOwn()
	c := j.newCapture(ctx)
	defer c.abort()
	snap := map[string]state{}
	// Strict: a tree deeper than the journal follows cannot be rolled
	// back, so the command does not run.
	err := walkStrict(ctx, j.root, ".", j.skipped, func(x visit) error {
		if c.has(x.rel) {
			st, err := c.v.statAt(x.dir, x.rel, x.name, x.info, nil, nil)
			if err != nil {
				return fmt.Errorf("journal: read %s: %w", x.rel, err)
			}
			snap[x.rel] = st
			return nil
		}
		st, err := c.saveVisit(x)
		if err != nil {
			return fmt.Errorf("journal: save %s: %w", x.rel, err)
		}
		c.add(x.rel, st)
		snap[x.rel] = st
		return nil
	})
	if err != nil {
		return fmt.Errorf("journal: snapshot: %w", err)
	}
	// nightshift's own files that appeared since the journal began are
	// recorded, for a recover after a crash to leave them alone too.
	var own []record
	for p := range j.own {
		if !j.m.own[p] {
			own = append(own, record{Op: opOwn, Path: p})
		}
	}
	if err := c.commit(append(own, record{Op: opSnapshot})...); err != nil {
		return err
	}
	j.snap, j.snapCtx = snap, ctx
	crashpoint.Hit("journal: snapshot taken, command not started")
	return nil
}

// AfterSnapshot records what the tool left: the paths it created (they did
// not exist before) and the state of every captured path, so that rollback
// can tell the run's changes from later ones made by something else. It
// tells OnChange's function which paths the tool changed: the difference
// between the workspace now and the snapshot. It works under the context
// of the Snapshot it ends: once that is cancelled (a time limit, a
// signal) it stops and leaves the snapshot open, which a rollback or a
// resumed run reads as "whatever the command could have changed goes
// back".
func (j *Journal) AfterSnapshot() error {
	crashpoint.Hit("journal: command returned, snapshot open")
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return ErrClosed
	}
	ctx := j.snapCtx
	if ctx == nil {
		ctx = context.Background()
	}
	j.lookOwn()
	j.snapCtx = nil
	c := j.newCapture(ctx)
	defer c.abort()
	// One walk does both: what appeared is captured as absent before
	// the step, and every path's state is read where the walk stands.
	now := map[string]state{}
	err := walk(ctx, j.root, ".", j.skipped, func(x visit) error {
		if !c.has(x.rel) {
			c.add(x.rel, state{Kind: absent})
		}
		st, err := c.v.statAt(x.dir, x.rel, x.name, x.info, nil, nil)
		if err != nil {
			// A path that cannot be read gets no after record, and so
			// counts as the run's change.
			return ctx.Err()
		}
		now[x.rel] = st
		return nil
	})
	if err != nil {
		return fmt.Errorf("journal: after snapshot: %w", err)
	}
	var afters []record
	for _, p := range slices.Sorted(maps.Keys(mergeKeys(j.m.prior, nil, c.seen))) {
		st, ok := now[p]
		if !ok {
			// Gone, or below something that is no folder now.
			if st, err = c.v.stat(p, nil, nil); err != nil {
				continue
			}
			now[p] = st
		}
		afters = append(afters, record{Op: opAfter, Path: p, State: &st})
	}
	var changed []string
	if j.snap != nil {
		changed = j.changedSince(now)
		j.snap = nil
	}
	err = c.commit(append(afters, record{Op: opSnapshotEnd})...)
	if j.onChange != nil && len(changed) > 0 {
		j.onChange(changed)
	}
	return err
}

// captureAppeared adds to c, as absent before the step, every path of
// the workspace that c has no prior state for: a path that appeared while
// a snapshot was open, which a rollback removes. Ending a snapshot, live
// (AfterSnapshot) or after the run's process died (closeSnapshot), takes
// this step first.
func (j *Journal) captureAppeared(c *capture) error {
	return walk(c.v.ctx, j.root, ".", j.skipped, func(x visit) error {
		if !c.has(x.rel) {
			c.add(x.rel, state{Kind: absent})
		}
		return nil
	})
}

// changedSince lists the paths whose state differs between the last
// snapshot and now, slash-separated: what the judge must see. A folder
// that still exists holds nothing to read and is left out (its files are
// listed); a folder that is gone is named, as its files are.
func (j *Journal) changedSince(now map[string]state) []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(mergeKeys(j.snap, now))) {
		before, ok := j.snap[p]
		if !ok {
			before = state{Kind: absent}
		}
		after, ok := now[p]
		if !ok {
			after = state{Kind: absent}
		}
		if before.same(after) || after.Kind == dir {
			continue
		}
		out = append(out, filepath.ToSlash(p))
	}
	return out
}

func mergeKeys(a, b map[string]state, c ...map[string]bool) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	for _, m := range c {
		for k := range m {
			out[k] = true
		}
	}
	return out
}
