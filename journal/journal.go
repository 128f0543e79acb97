package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/internal/crashpoint"
	"github.com/nightshift-dev/nightshift/internal/ownfiles"
	"github.com/nightshift-dev/nightshift/statedir"
)

// Journal records one run's changes to a workspace. Its methods are safe
// for concurrent use.
type Journal struct {
	mu      sync.Mutex
	root    *os.Root
	rootDir string
	dir     string          // this run's journal folder
	skip    string          // the state folder relative to the root; "" if outside
	own     map[string]bool // nightshift's own files in the workspace (lookOwn)
	lockF   *os.File        // the run folder, locked while the run lives
	afterF  *os.File        // after.jsonl, opened on the first After
	m       *model
	steps   int // durable steps so far
	done    bool
	// snap holds every path's state when the last snapshot was taken,
	// to tell what the command changed.
	snap     map[string]state
	snapCtx  context.Context // the open snapshot's: AfterSnapshot works under it
	onChange func(paths []string)
	// cache remembers files' states by their stat, for this run.
	cache *statCache
}

// Begin starts the journal of run runID for the workspace root, in
// stateDir/journal/runID, and syncs its begin record to disk. stateDir is
// the workspace's state folder, outside the workspace
// (statedir.Workspace); one inside the workspace is refused (an error
// matching statedir.ErrUnusable), since a run could write a journal
// there. Begin refuses with a *NeedsRecoveryError when an earlier run
// left a journal there, and with a *BusyError (ErrBusy) when another run
// is active in the workspace. A journal an earlier version left in the
// workspace's .nightshift/ folder does not stop it: nightshift never
// applies one by itself (see Legacy).
func Begin(root, stateDir, runID string) (*Journal, error) {
	if runID == "" || !filepath.IsLocal(runID) || strings.ContainsRune(runID, filepath.Separator) || strings.HasPrefix(runID, ".") {
		return nil, fmt.Errorf("journal: run ID %q must be a plain name", runID)
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	absState, err := filepath.Abs(stateDir)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	// A journal is trusted for being where no run can write: a state
	// folder inside the workspace is no such place.
	if err := statedir.CheckOutside(absState, absRoot); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if err := checkNoOthers(absRoot, absState); err != nil {
		return nil, err
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

// checkNoOthers refuses when another journal exists: a dead one needs
// recovery, a live one means a run is going on.
func checkNoOthers(root, stateDir string) error {
	s, err := scan(root, stateDir)
	if err != nil {
		return err
	}
	if len(s.live) > 0 {
		return &BusyError{Live: s.live}
	}
	if len(s.dead) > 0 {
		e := &NeedsRecoveryError{StateDir: stateDir}
		for _, d := range s.dead {
			e.Runs = append(e.Runs, d.run)
			e.Journals = append(e.Journals, d.dir)
		}
		return e
	}
	return nil
}

// create makes the run's journal folder: built under a temporary name,
// locked, its begin record synced, then renamed into place, so that a
// journal folder always has its begin record.
func create(r *os.Root, root, stateDir, runID string) (*Journal, error) {
	jdir := journalsDir(stateDir)
	if err := statedir.MkdirPrivate(jdir); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	dir := filepath.Join(jdir, runID)
	if _, err := os.Lstat(dir); err == nil {
		return nil, fmt.Errorf("journal: %s exists already", dir)
	}
	tmp := filepath.Join(jdir, "."+runID+newSuffix)
	os.RemoveAll(tmp) // a leftover of a Begin that died
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	lockF, err := lockDir(tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("journal: %w", err)
	}
	j := &Journal{root: r, rootDir: root, dir: dir, lockF: lockF, m: newModel(), cache: newStatCache()}
	if rel, err := filepath.Rel(root, stateDir); err == nil && filepath.IsLocal(rel) {
		j.skip = rel
	}
	begin := record{Op: opBegin, Run: runID, Root: root, Time: time.Now().UTC(), PID: os.Getpid(), Start: procStart(os.Getpid()), Format: format,
		Own: ownfiles.In(root)}
	err = func() error {
		if err := os.Mkdir(filepath.Join(tmp, stepsName), 0o700); err != nil {
			return err
		}
		data, err := encode([]record{begin})
		if err != nil {
			return err
		}
		f, err := statedir.OpenFile(filepath.Join(tmp, beginName), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = syncDir(tmp)
		}
		if err == nil {
			crashpoint.Hit("journal: begun, not renamed")
			err = os.Rename(tmp, dir)
		}
		// The journal's folders must be durable too, up to the state
		// folder: a synced record in a folder the disk forgot is no
		// journal at all.
		for _, d := range []string{jdir, stateDir} {
			if err == nil {
				err = syncDir(d)
			}
		}
		return err
	}()
	if err != nil {
		lockF.Close()
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("journal: begin: %w", err)
	}
	j.m.apply(begin)
	return j, nil
}

// Dir returns the folder this run's journal is kept in.
func (j *Journal) Dir() string { return j.dir }

// OnChange sets fn to be called when a danger-class tool returns
// (AfterSnapshot) with the slash-separated paths whose state it changed:
// files and symlinks changed, created or deleted, and folders deleted. A
// workspace's AddChanged fits, so that the judge sees what commands did.
func (j *Journal) OnChange(fn func(paths []string)) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.onChange = fn
}

// skipped reports whether rel is the state folder or inside it, or a
// file this process of nightshift writes for itself (its events, traces,
// report page, ledger: package ownfiles): the journal never records its
// own files, so a rollback never cuts them back, a command's diff never
// counts nightshift's appends, and the judge never reads them.
func (j *Journal) skipped(rel string) bool {
	if j.own[rel] || j.m.own[rel] {
		return true
	}
	return j.skip != "" && (rel == j.skip || strings.HasPrefix(rel, j.skip+string(filepath.Separator)))
}

// lookOwn reads which of nightshift's own files lie in the workspace now:
// a file may be opened after the journal began. The caller holds mu.
func (j *Journal) lookOwn() {
	own := ownfiles.In(j.rootDir)
	j.own = make(map[string]bool, len(own))
	for _, p := range own {
		j.own[p] = true
	}
}

// ErrOwnFile is wrapped by the error of Before for a file nightshift
// itself writes during the run: no tool may change it.
var ErrOwnFile = errors.New("a file nightshift itself writes during this run (its events, traces, report or ledger); tools may not change it")

// clean checks that rel is a path inside the workspace and cleans it.
func clean(rel string) (string, error) {
	c := filepath.Clean(filepath.FromSlash(rel))
	if !filepath.IsLocal(c) {
		return "", fmt.Errorf("journal: path %q is not inside the workspace", rel)
	}
	return c, nil
}

// Before saves the prior state of rel (and of any missing parent folder)
// and syncs it to disk; only then may the change happen. The first touch
// of a path in a run saves it; later touches cost nothing. A folder is
// saved with everything in it. It fits workspace.SetGuard: an error stops
// the change.
func (j *Journal) Before(rel string) error {
	rel, err := clean(rel)
	if err != nil {
		return err
	}
	if rel == "." {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return ErrClosed
	}
	j.lookOwn()
	if j.own[rel] {
		return fmt.Errorf("journal: %s is %w", filepath.ToSlash(rel), ErrOwnFile)
	}
	if j.skipped(rel) {
		return nil
	}
	if _, ok := j.m.prior[rel]; ok {
		if _, ok := j.m.after[rel]; !ok {
			return nil
		}
		// What the run left the path in is about to be stale. If the
		// process dies after the change and before its After, the path
		// must not look changed by somebody else: say so, durably, first.
		r := record{Op: opChanging, Path: rel, Step: j.steps}
		if err := j.appendAfter(r, true); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		j.m.apply(r)
		return nil
	}
	c := j.newCapture(context.Background())
	defer c.abort()
	// Missing parents will be created by the change: remember that they
	// did not exist so that rollback removes them.
	parts := strings.Split(rel, string(filepath.Separator))
	for i := 1; i < len(parts); i++ {
		parent := filepath.Join(parts[:i]...)
		if _, ok := j.m.prior[parent]; ok || c.has(parent) {
			continue
		}
		st, err := c.v.stat(parent, nil, nil)
		if err != nil {
			return fmt.Errorf("journal: %s: %w", parent, err)
		}
		if st.Kind == absent {
			c.add(parent, st)
		}
	}
	if err := c.tree(rel); err != nil {
		return err
	}
	return c.commit()
}

// After records the state the run left rel in, so that rollback can tell
// the run's own change from a change made by something else. It fits
// workspace.SetAfter. It is not synced: after a crash, a path without an
// after record is taken to hold the run's change, which is the safe side.
func (j *Journal) After(rel string) {
	rel, err := clean(rel)
	if err != nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done || j.skipped(rel) {
		return
	}
	if _, ok := j.m.prior[rel]; !ok {
		return
	}
	v := newView(context.Background(), j.root, j.cache)
	st, err := v.stat(rel, nil, nil)
	v.close()
	if err != nil {
		return
	}
	r := record{Op: opAfter, Path: rel, State: &st, Step: j.steps}
	if j.appendAfter(r, false) == nil {
		j.m.apply(r)
	}
}

// appendAfter appends r to after.jsonl. An after record is not synced: a
// crash may lose it, or cut it short, and either only makes rollback
// count the path as the run's change. A changing record is (durable).
func (j *Journal) appendAfter(r record, durable bool) error {
	if j.afterF == nil {
		f, err := statedir.OpenFile(filepath.Join(j.dir, afterName), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return err
		}
		if err := syncDir(j.dir); err != nil {
			f.Close()
			return err
		}
		j.afterF = f
	}
	data, err := encode([]record{r})
	if err != nil {
		return err
	}
	if _, err = j.afterF.Write(data); err != nil || !durable {
		return err
	}
	return j.afterF.Sync()
}

// Commit ends the run keeping its changes (it ended done, or the person
// asked to keep them) and drops the journal with every saved content.
func (j *Journal) Commit() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return ErrClosed
	}
	return j.drop()
}

// drop removes the journal folder, durably, and releases the root and the
// lock.
func (j *Journal) drop() error {
	j.done = true
	if j.afterF != nil {
		j.afterF.Close()
	}
	err := dropDir(j.dir)
	j.lockF.Close()
	j.root.Close()
	if err != nil {
		return fmt.Errorf("journal: drop: %w", err)
	}
	return nil
}
