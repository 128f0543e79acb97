package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ErrNeedsRecovery means an earlier run in this workspace died midway and
// left its journal: the workspace may hold half of that run's changes. Run
// `nightshift recover` (Recover) first.
var ErrNeedsRecovery = errors.New("journal: an earlier run died midway; run `nightshift recover` first")

// ErrBusy means another run is active in this workspace right now.
var ErrBusy = errors.New("journal: another run is active in this workspace")

// ErrClosed means the journal was already committed or rolled back.
var ErrClosed = errors.New("journal: already committed or rolled back")

// NeedsRecoveryError names the runs whose journals are pending. It
// matches ErrNeedsRecovery with errors.Is.
type NeedsRecoveryError struct {
	StateDir string
	Runs     []string
}

func (e *NeedsRecoveryError) Error() string {
	return fmt.Sprintf("journal: run %s died midway in this workspace and left a journal in %s; run `nightshift recover` first",
		strings.Join(e.Runs, ", "), journalsDir(e.StateDir))
}

// Is makes errors.Is(err, ErrNeedsRecovery) true.
func (e *NeedsRecoveryError) Is(target error) bool { return target == ErrNeedsRecovery }

// Journal records one run's changes to a workspace. Its methods are safe
// for concurrent use.
type Journal struct {
	mu    sync.Mutex
	root  *os.Root
	dir   string // this run's journal folder
	skip  string // the state folder relative to the root; "" if outside
	log   *os.File
	m     *model
	done  bool
	blobs string
}

// Begin starts the journal of run runID for the workspace root, in
// stateDir/journal/runID, and syncs its "begun" record to disk. It refuses
// with a *NeedsRecoveryError when an earlier run left a journal, and with
// ErrBusy when another run is active in the workspace.
func Begin(root, stateDir, runID string) (*Journal, error) {
	if runID == "" || !filepath.IsLocal(runID) || strings.ContainsRune(runID, filepath.Separator) {
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
	if err := checkNoOthers(absState); err != nil {
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
func checkNoOthers(stateDir string) error {
	dead, live, err := scan(stateDir)
	if err != nil {
		return err
	}
	if len(live) > 0 {
		return fmt.Errorf("%w (run %s)", ErrBusy, strings.Join(live, ", "))
	}
	if len(dead) > 0 {
		return &NeedsRecoveryError{StateDir: stateDir, Runs: dead}
	}
	return nil
}

func create(r *os.Root, root, stateDir, runID string) (*Journal, error) {
	jdir := journalsDir(stateDir)
	if err := os.MkdirAll(jdir, 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	dir := filepath.Join(jdir, runID)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	blobs := filepath.Join(dir, blobsName)
	if err := os.Mkdir(blobs, 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	log, err := os.OpenFile(filepath.Join(dir, logName), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if err := lock(log); err != nil {
		log.Close()
		return nil, fmt.Errorf("journal: %w", err)
	}
	j := &Journal{root: r, dir: dir, log: log, m: newModel(), blobs: blobs}
	if rel, err := filepath.Rel(root, stateDir); err == nil && filepath.IsLocal(rel) {
		j.skip = rel
	}
	begin := record{Op: opBegin, Run: runID, Root: root, Time: time.Now().UTC()}
	err = appendRecords(log, []record{begin}, true)
	// The journal's folders must be durable too, up to the state folder:
	// a synced log in a folder the disk forgot is no journal at all.
	for _, d := range []string{dir, jdir, stateDir} {
		if err == nil {
			err = syncDir(d)
		}
	}
	if err != nil {
		log.Close()
		return nil, fmt.Errorf("journal: begin: %w", err)
	}
	j.m.apply(begin)
	return j, nil
}

// Dir returns the folder this run's journal is kept in.
func (j *Journal) Dir() string { return j.dir }

// skipped reports whether rel is the state folder or inside it: the
// journal never records its own files.
func (j *Journal) skipped(rel string) bool {
	return j.skip != "" && (rel == j.skip || strings.HasPrefix(rel, j.skip+string(filepath.Separator)))
}

// clean checks that rel is a path inside the workspace and cleans it.
func clean(rel string) (string, error) {
	c := filepath.Clean(rel)
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
	if rel == "." || j.skipped(rel) {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return ErrClosed
	}
	if _, ok := j.m.prior[rel]; ok {
		return nil
	}
	c := j.newCapture()
	defer c.abort()
	// Missing parents will be created by the change: remember that they
	// did not exist so that rollback removes them.
	parts := strings.Split(rel, string(filepath.Separator))
	for i := 1; i < len(parts); i++ {
		parent := filepath.Join(parts[:i]...)
		if _, ok := j.m.prior[parent]; ok || c.has(parent) {
			continue
		}
		st, err := stat(j.root, parent, nil)
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
	if err != nil || j.skipped(rel) {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return
	}
	if _, ok := j.m.prior[rel]; !ok {
		return
	}
	st, err := stat(j.root, rel, nil)
	if err != nil {
		return
	}
	r := record{Op: opAfter, Path: rel, State: &st}
	if appendRecords(j.log, []record{r}, false) == nil {
		j.m.apply(r)
	}
}

// Commit ends the run keeping its changes (it ended done, or the person
// asked to keep them) and drops the journal.
func (j *Journal) Commit() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return ErrClosed
	}
	return j.drop()
}

// drop removes the journal folder, durably, and releases the root.
func (j *Journal) drop() error {
	j.done = true
	j.log.Close() // releases the lock; the folder goes next
	err := os.RemoveAll(j.dir)
	if err == nil {
		err = syncDir(filepath.Dir(j.dir))
	}
	j.root.Close()
	if err != nil {
		return fmt.Errorf("journal: drop: %w", err)
	}
	return nil
}
