package journal

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/nightshift-dev/nightshift/internal/ownfiles"
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

// scanned is what scan found: the journals of dead runs in the state
// folder, newest first, the live runs, and the journals an earlier
// version left in the workspace (legacy), which are never applied but
// when a person asks (RecoverLegacy).
type scanned struct {
	dead   []found
	live   []Process
	legacy []found
}

// scan lists the journals of the workspace root: in the state folder, and
// in the workspace's .nightshift/journal/ (earlier versions; root may be
// "" to look in the state folder only). Leftovers of a Begin or a drop
// that died midway (.<run>.new, .<run>.gone) are removed on the way: the
// first never let a change happen, the second had decided.
//
// Only a journal in the state folder, which lies outside the workspace
// and which no sandboxed command can see, can be one nightshift wrote: a
// journal in the workspace, or in a state folder inside it, could have
// been written by a run (or shipped by a cloned repository), and is
// listed as legacy, never as pending.
func scan(root, stateDir string) (scanned, error) {
	var s scanned
	stateTrusted := root == "" || !errors.Is(statedir.CheckOutside(stateDir, root), statedir.ErrUnusable)
	dirs := []found{{dir: journalsDir(stateDir), legacy: !stateTrusted}}
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
			if d.legacy {
				continue // a planted folder we cannot read is nothing of ours
			}
			return s, fmt.Errorf("journal: %w", err)
		}
		for _, e := range entries {
			p := filepath.Join(d.dir, e.Name())
			if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
				continue // a symlink is never followed into
			}
			if strings.HasPrefix(e.Name(), ".") {
				if !d.legacy && (strings.HasSuffix(e.Name(), newSuffix) || strings.HasSuffix(e.Name(), goneSuffix)) {
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
			if d.legacy {
				// Not ours: neither pending nor, by its lock, alive
				// (a process a command left could hold one).
				s.legacy = append(s.legacy, j)
				continue
			}
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
	newest := func(a, b found) int {
		return cmp.Or(b.begun.Compare(a.begun), strings.Compare(b.run, a.run))
	}
	slices.SortFunc(s.dead, newest)
	slices.SortFunc(s.legacy, newest)
	return s, nil
}

// LegacyDir returns the workspace's .nightshift/journal folder when it
// holds something (a journal an earlier version left, or one a run or a
// cloned repository planted), else "". It is never applied by a run:
// the run says so (Legacy lists what applying it would change,
// RecoverLegacy applies it when a person asks).
func LegacyDir(root string) string {
	d := legacyJournals(root)
	if d == "" {
		return ""
	}
	f, err := os.Open(d)
	if err != nil {
		return ""
	}
	defer f.Close()
	if names, _ := f.Readdirnames(1); len(names) == 0 {
		return ""
	}
	return d
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
	r.unpackNames()
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
// holds them. Newest first. None is not an error. Journals in the
// workspace's .nightshift/ folder are never pending (see Legacy).
func Pending(stateDir string) ([]string, error) {
	s, err := scan("", stateDir)
	var out []string
	for _, d := range s.dead {
		out = append(out, d.run)
	}
	return out, err
}

// Recover restores the workspace root from every journal that a dead run
// left in its state folder stateDir, newest first (each one's prior state
// is older than the next one's), and drops each journal once its run is
// undone. Nothing to do is not an error: it returns an empty Report.
//
// Only what nightshift wrote is applied: a journal in the state folder
// (outside the workspace, hidden from every sandboxed command) whose
// begin record names this workspace and the run its folder is named
// after, in a folder that is yours and that nobody else may write. Any
// other there is reported as damaged, applied not at all, and kept for
// Discard. A journal in the workspace's .nightshift/ folder (where
// earlier versions kept them, and where a run or a cloned repository can
// put one) is never applied here: Legacy lists it, and RecoverLegacy
// applies it when a person asks.
//
// It refuses with a *BusyError (ErrBusy) while a run, or a command a run
// started, is alive in the workspace. A journal it cannot apply in full
// (damaged, or saved content that cannot be read back) is applied as far
// as it goes and kept, and Recover returns a *DamagedError (ErrDamaged)
// with the Report saying what is damaged, what was restored and what was
// not. Recover can be stopped at any point and run again.
func Recover(root, stateDir string) (Report, error) {
	return RecoverContext(context.Background(), root, stateDir)
}

// RecoverContext is Recover, stopped when ctx is done (a signal): what is
// left to do is left in the journal, for the next Recover.
func RecoverContext(ctx context.Context, root, stateDir string) (Report, error) {
	absRoot, absState, err := absPaths(root, stateDir)
	if err != nil {
		return Report{}, err
	}
	s, err := scan(absRoot, absState)
	if err != nil {
		return Report{}, err
	}
	return apply(ctx, absRoot, absState, s, s.dead, false)
}

// apply applies the journals js of the workspace root in order.
func apply(ctx context.Context, root, stateDir string, s scanned, js []found, legacy bool) (Report, error) {
	var rep Report
	if busy := busy(s, root, len(js) > 0); busy != nil {
		return rep, busy
	}
	if len(js) == 0 {
		return rep, nil
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return rep, fmt.Errorf("journal: %w", err)
	}
	defer r.Close()
	var damaged DamagedError
	for _, d := range js {
		one, err := recoverOne(ctx, r, root, stateDir, d, legacy, false)
		rep.Merge(one)
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

// LegacyJournal is a journal an earlier version left in the workspace's
// .nightshift/journal/ folder, as Legacy found it.
type LegacyJournal struct {
	Run string
	Dir string
	// Would is what applying it (RecoverLegacy) would do: the paths it
	// would restore, remove and recreate, and those it would leave.
	Would Report
	// Refused says why it can never be applied (it names no workspace,
	// or another one); "" when RecoverLegacy may apply it.
	Refused string
}

// Legacy lists the journals that earlier versions left in the workspace's
// .nightshift/journal/ folder (and any in a state folder inside the
// workspace), newest first, each with what applying it would change. It
// changes nothing. Such a journal lies where a run's command, or a cloned
// repository, could have written it: nightshift never applies it by
// itself.
func Legacy(ctx context.Context, root, stateDir string) ([]LegacyJournal, error) {
	absRoot, absState, err := absPaths(root, stateDir)
	if err != nil {
		return nil, err
	}
	s, err := scan(absRoot, absState)
	if err != nil || len(s.legacy) == 0 {
		return nil, err
	}
	r, err := os.OpenRoot(absRoot)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer r.Close()
	var out []LegacyJournal
	for _, d := range s.legacy {
		lj := LegacyJournal{Run: d.run, Dir: d.dir}
		would, err := recoverOne(ctx, r, absRoot, absState, d, true, true)
		if err != nil && !errors.Is(err, ErrDamaged) {
			return out, err
		}
		lj.Would = would
		if p := provenance(load(d.dir, d.legacy), d, absRoot, true); p != "" {
			lj.Refused = p
		}
		out = append(out, lj)
	}
	return out, nil
}

// RecoverLegacy applies, when a person asks (`nightshift recover
// --legacy`), the journals that Legacy lists, newest first, and drops each
// one once applied. A journal that names no workspace, or another one, is
// never applied; nothing is written under a protected path (a .git, a
// core.hooksPath folder, a gitfile's target), not even removed; and it
// refuses, like Recover, while a run or its command is alive.
func RecoverLegacy(ctx context.Context, root, stateDir string) (Report, error) {
	absRoot, absState, err := absPaths(root, stateDir)
	if err != nil {
		return Report{}, err
	}
	s, err := scan(absRoot, absState)
	if err != nil {
		return Report{}, err
	}
	return apply(ctx, absRoot, absState, s, s.legacy, true)
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
// holding its journal, or, when there is something to apply, a command a
// dead run started, found by its mark.
func busy(s scanned, root string, applying bool) *BusyError {
	live := slices.Clone(s.live)
	if applying {
		for _, pid := range marked(Mark(root)) {
			live = append(live, Process{PID: pid, Command: true})
		}
	}
	if len(live) == 0 {
		return nil
	}
	return &BusyError{Live: live}
}

// provenance says why the journal d, as read into s, is not one to apply
// to the workspace root; "" when it is. A journal applies only if its
// begin record names this workspace and the run its folder is named
// after; one in the state folder must also be a folder of yours that
// nobody else may write (a journal in the workspace is never yours to
// trust, whatever its modes: see Legacy).
func provenance(s *stored, d found, root string, legacy bool) string {
	if !legacy {
		fi, err := os.Lstat(d.dir)
		switch {
		case err != nil:
			return err.Error()
		case !fi.IsDir():
			return "it is not a folder"
		case fi.Mode().Perm()&0o022 != 0:
			return fmt.Sprintf("its folder may be written by others (mode %v), so nightshift cannot tell that it wrote it", fi.Mode().Perm())
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
			return fmt.Sprintf("its folder belongs to another user (uid %d)", st.Uid)
		}
	}
	switch {
	case s.m.root == "":
		return "it names no workspace (its begin record is missing or damaged), so nothing says it was written for this one"
	case !sameFolder(s.m.root, root):
		return fmt.Sprintf("it was written for the workspace %s, not %s", s.m.root, root)
	case s.m.run != d.run:
		return fmt.Sprintf("its begin record names the run %s, not %s, the run its folder is named after", s.m.run, d.run)
	}
	return ""
}

// recoverOne applies one dead run's journal, and drops it when it was
// applied in full; with dry set, it only says what it would do.
func recoverOne(ctx context.Context, r *os.Root, root, stateDir string, d found, legacy, dry bool) (Report, error) {
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
	if why := provenance(s, d, root, legacy); why != "" {
		// Not ours: a journal copied here, or planted by a run or a
		// repository. Applying it could remove or write any file.
		rep.Damaged = append(rep.Damaged, fmt.Sprintf("journal of run %s: %s; nothing was applied", d.run, why))
		return rep, ErrDamaged
	}
	rep.Damaged = s.damage
	t := &target{ctx: ctx, root: r, dir: d.dir, blobs: s.blobs, m: s.m, skip: skipFor(root, stateDir, d.legacy, s.m.own),
		legacy: legacy, dry: dry, protected: protectedIn(ctx, root)}
	one, err := t.rollback()
	one.Runs, one.Damaged = rep.Runs, rep.Damaged
	if err != nil || dry {
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
// state folder when it lies inside the workspace, .nightshift/ for an
// earlier version's journal, which lived there, and nightshift's own
// files, those its run recorded and those this process writes.
func skipFor(root, stateDir string, legacy bool, recorded map[string]bool) func(string) bool {
	var skips []string
	if rel, err := filepath.Rel(root, stateDir); err == nil && filepath.IsLocal(rel) {
		skips = append(skips, rel)
	}
	if legacy {
		skips = append(skips, legacyName)
	}
	own := map[string]bool{}
	for _, p := range ownfiles.In(root) {
		own[p] = true
	}
	return func(p string) bool {
		if own[p] || recorded[p] {
			return true
		}
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
	if busy := busy(s, absRoot, len(s.dead)+len(s.legacy) > 0); busy != nil {
		return nil, busy
	}
	var out []string
	for _, d := range append(s.dead, s.legacy...) {
		if err := dropDir(d.dir); err != nil {
			return out, fmt.Errorf("journal: discard run %s: %w", d.run, err)
		}
		out = append(out, d.run)
	}
	return out, nil
}
