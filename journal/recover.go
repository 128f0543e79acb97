package journal

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/statedir"
)

// legacyName is the state folder inside the workspace where earlier
// versions kept their journals (and where tools are still refused).
const legacyName = ".nightshift"

// found is a journal on disk.
type found struct {
	run    string
	dir    string
	legacy bool
	begun  time.Time
}

// scanned is what scan found: journals of dead runs, newest first, and
// the live runs.
type scanned struct {
	dead []found
	live []Process
}

// scan lists the journals of the workspace root: in the state folder, and
// in the workspace's .nightshift/journal/ (earlier versions). root may be
// "" to look in the state folder only. Leftovers of a Begin or a drop
// that died midway (.<run>.new, .<run>.gone) are removed on the way: the
// first never let a change happen, the second had decided.
func scan(root, stateDir string) (scanned, error) {
	var s scanned
	dirs := []found{{dir: journalsDir(stateDir)}}
	if root != "" {
		if legacy := legacyJournals(root); legacy != "" && legacy != journalsDir(stateDir) {
			dirs = append(dirs, found{dir: legacy, legacy: true})
		}
	}
	for _, d := range dirs {
		entries, err := os.ReadDir(d.dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return s, fmt.Errorf("journal: %w", err)
		}
		for _, e := range entries {
			p := filepath.Join(d.dir, e.Name())
			if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
				continue // a symlink is never followed into
			}
			if strings.HasPrefix(e.Name(), ".") {
				if strings.HasSuffix(e.Name(), newSuffix) || strings.HasSuffix(e.Name(), goneSuffix) {
					if f, err := lockDir(p); err == nil {
						os.RemoveAll(p)
						f.Close()
					}
				}
				continue
			}
			legacy := d.legacy || isLegacyFormat(p)
			j := found{run: e.Name(), dir: p, legacy: legacy}
			first, _ := firstRecord(p, legacy)
			j.begun = first.Time
			alive, err := isLive(p, legacy)
			if err != nil {
				return s, fmt.Errorf("journal: %w", err)
			}
			if alive {
				proc := Process{Run: j.run}
				if sameProcess(first.PID, first.Start) {
					proc.PID = first.PID
				}
				s.live = append(s.live, proc)
				continue
			}
			s.dead = append(s.dead, j)
		}
	}
	slices.SortFunc(s.dead, func(a, b found) int {
		return cmp.Or(b.begun.Compare(a.begun), strings.Compare(b.run, a.run))
	})
	return s, nil
}

// legacyJournals returns root/.nightshift/journal when both are real
// folders (not symlinks, which a cloned repository could plant), else "".
func legacyJournals(root string) string {
	d := root
	for _, name := range []string{legacyName, statedir.JournalName} {
		d = filepath.Join(d, name)
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
			return ""
		}
	}
	return d
}

// isLegacyFormat tells an earlier version's journal (one log) from ours.
func isLegacyFormat(dir string) bool {
	for _, name := range []string{beginName, stepsName} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return false
		}
	}
	for _, name := range []string{logName, blobsName} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// firstRecord reads a journal's begin record.
func firstRecord(dir string, legacy bool) (record, error) {
	var r record
	name := beginName
	if legacy {
		name = logName
	}
	b, err := statedir.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return r, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	if err := json.Unmarshal([]byte(line), &r); err != nil || r.Op != opBegin {
		return record{}, fmt.Errorf("no begin record")
	}
	return r, nil
}

// isLive reports whether a live process holds the journal's lock: the
// folder's, or an earlier version's lock on its log.
func isLive(dir string, legacy bool) (bool, error) {
	var f *os.File
	var err error
	if legacy {
		f, err = statedir.OpenFile(filepath.Join(dir, logName), os.O_RDONLY, 0)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err == nil {
			err = lock(f)
		}
	} else {
		f, err = lockDir(dir)
	}
	if f != nil {
		f.Close()
	}
	switch {
	case errors.Is(err, errLocked):
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, err
}

// Pending returns the runs that died midway in the workspace whose state
// folder is stateDir: their journals are still there and no live process
// holds them. Newest first. None is not an error. It does not look in the
// workspace's .nightshift/ folder; Begin and Recover do.
func Pending(stateDir string) ([]string, error) {
	s, err := scan("", stateDir)
	var out []string
	for _, d := range s.dead {
		out = append(out, d.run)
	}
	return out, err
}

// Recover restores the workspace root from every journal that a dead run
// left, in stateDir or in the workspace's .nightshift/journal/ (earlier
// versions), newest first (each one's prior state is older than the next
// one's), and drops each journal once its run is undone. Nothing to do is
// not an error: it returns an empty Report.
//
// It refuses with a *BusyError (ErrBusy) while a run, or a command a run
// started, is alive in the workspace. A journal it cannot apply in full
// (damaged, or saved content that cannot be read back) is applied as far
// as it goes and kept, and Recover returns a *DamagedError (ErrDamaged)
// with the Report saying what is damaged, what was restored and what was
// not. Recover can be stopped at any point and run again.
func Recover(root, stateDir string) (Report, error) {
	var rep Report
	absRoot, absState, err := absPaths(root, stateDir)
	if err != nil {
		return rep, err
	}
	s, err := scan(absRoot, absState)
	if err != nil {
		return rep, err
	}
	if busy := busy(s, absRoot); busy != nil {
		return rep, busy
	}
	if len(s.dead) == 0 {
		return rep, nil
	}
	r, err := os.OpenRoot(absRoot)
	if err != nil {
		return rep, fmt.Errorf("journal: %w", err)
	}
	defer r.Close()
	var damaged DamagedError
	for _, d := range s.dead {
		one, err := recoverOne(r, absRoot, absState, d)
		rep.merge(one)
		if errors.Is(err, ErrDamaged) {
			damaged.Runs = append(damaged.Runs, d.run)
			damaged.Journals = append(damaged.Journals, d.dir)
			continue
		}
		if err != nil {
			return rep, fmt.Errorf("journal: recover run %s: %w (the journal is kept; recover again once the cause is fixed)", d.run, err)
		}
	}
	if len(damaged.Runs) > 0 {
		return rep, &damaged
	}
	return rep, nil
}

func absPaths(root, stateDir string) (string, string, error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return "", "", fmt.Errorf("journal: %w", err)
	}
	absState, err := filepath.Abs(stateDir)
	if err != nil {
		return "", "", fmt.Errorf("journal: %w", err)
	}
	return absRoot, absState, nil
}

// busy returns what is alive in the workspace root, if anything: a run
// holding its journal, or a command a dead run started, found by its mark.
func busy(s scanned, root string) *BusyError {
	live := slices.Clone(s.live)
	if len(s.dead) > 0 {
		for _, pid := range marked(Mark(root)) {
			live = append(live, Process{PID: pid, Command: true})
		}
	}
	if len(live) == 0 {
		return nil
	}
	return &BusyError{Live: live}
}

// recoverOne applies one dead run's journal, and drops it when it was
// applied in full.
func recoverOne(r *os.Root, root, stateDir string, d found) (Report, error) {
	// Hold the run's lock while restoring, so that no other recover or
	// run works on it at the same time.
	var lockF *os.File
	var err error
	if d.legacy {
		lockF, err = statedir.OpenFile(filepath.Join(d.dir, logName), os.O_RDONLY, 0)
		if err == nil {
			err = lock(lockF)
		} else if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
	} else {
		lockF, err = lockDir(d.dir)
	}
	if lockF != nil {
		defer lockF.Close()
	}
	if err != nil {
		return Report{}, err
	}
	s := load(d.dir, d.legacy)
	rep := Report{Runs: []string{d.run}}
	if s.m.root != "" && !sameFolder(s.m.root, root) {
		// Not ours: a journal copied here, or planted in .nightshift/ by
		// a repository. Applying it could remove any file.
		rep.Damaged = append(rep.Damaged, fmt.Sprintf("journal of run %s: it was written for the workspace %s, not %s; nothing was applied", d.run, s.m.root, root))
		return rep, ErrDamaged
	}
	rep.Damaged = s.damage
	t := &target{root: r, dir: d.dir, blobs: s.blobs, m: s.m, skip: skipFor(root, stateDir, d.legacy)}
	one, err := t.rollback()
	one.Runs, one.Damaged = rep.Runs, rep.Damaged
	if err != nil {
		return one, err
	}
	if !one.Complete() {
		return one, ErrDamaged
	}
	if err := dropDir(d.dir); err != nil {
		return one, err
	}
	return one, nil
}

// skipFor returns which workspace paths a journal never recorded: the
// state folder when it lies inside the workspace, and .nightshift/ for an
// earlier version's journal, which lived there.
func skipFor(root, stateDir string, legacy bool) func(string) bool {
	var skips []string
	if rel, err := filepath.Rel(root, stateDir); err == nil && filepath.IsLocal(rel) {
		skips = append(skips, rel)
	}
	if legacy {
		skips = append(skips, legacyName)
	}
	return func(p string) bool {
		for _, s := range skips {
			if p == s || isUnder(p, s) {
				return true
			}
		}
		return false
	}
}

// sameFolder reports whether a and b name one folder.
func sameFolder(a, b string) bool {
	if a == b {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	if errA != nil || errB != nil {
		return false
	}
	if ra == rb {
		return true
	}
	fa, errA := os.Stat(ra)
	fb, errB := os.Stat(rb)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// Discard drops the journals of dead runs in the workspace without
// applying them, saved contents and all, and returns their runs: for a
// person who looked at a damaged journal and decided. It refuses with a
// *BusyError while a run or its command is alive.
func Discard(root, stateDir string) ([]string, error) {
	absRoot, absState, err := absPaths(root, stateDir)
	if err != nil {
		return nil, err
	}
	s, err := scan(absRoot, absState)
	if err != nil {
		return nil, err
	}
	if busy := busy(s, absRoot); busy != nil {
		return nil, busy
	}
	var out []string
	for _, d := range s.dead {
		if err := dropDir(d.dir); err != nil {
			return out, fmt.Errorf("journal: discard run %s: %w", d.run, err)
		}
		out = append(out, d.run)
	}
	return out, nil
}
