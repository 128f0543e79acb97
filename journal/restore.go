package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/nightshift-dev/nightshift/internal/crashpoint"
	"github.com/nightshift-dev/nightshift/statedir"
)

// target is a journal being applied to its workspace: by Rollback, or by
// Recover after the run died.
type target struct {
	root  *os.Root
	dir   string // the run's journal folder; rollback.json is kept there
	blobs string // the folder of its packs
	m     *model
	skip  func(string) bool
}

// rollback puts the workspace back as the journal says it was. It can be
// stopped at any point (the process killed) and run again: each run picks
// up where the last one stopped, and ends in the same place.
func (t *target) rollback() (Report, error) {
	if err := adoptNew(t.root, t.m, t.skip); err != nil {
		return Report{}, err
	}
	return t.restore()
}

// adoptNew handles a snapshot left open (the process died, or the tool
// never returned): every path not captured appeared while the command ran,
// so it counts as created by the run.
func adoptNew(root *os.Root, m *model, skip func(string) bool) error {
	if !m.snapshotOpen {
		return nil
	}
	return walk(root, ".", skip, func(rel string) error {
		if _, ok := m.prior[rel]; !ok {
			m.prior[rel] = state{Kind: absent}
		}
		return nil
	})
}

// decision is what a rollback decided before it changed anything: which
// paths something else changed, to be left as they are. It is kept in
// rollback.json, so that a rollback stopped midway and run again does not
// take its own half-done work (a folder recreated but not yet given its
// mode) for somebody else's change.
type decision struct {
	Time      time.Time      `json:"time"`
	Conflicts []conflictJSON `json:"conflicts"`
}

type conflictJSON struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// decide reads the decision of an earlier, interrupted attempt, or makes
// it and syncs it to disk before anything changes.
func (t *target) decide(paths []string, cur map[string]state) (map[string]string, error) {
	path := filepath.Join(t.dir, decisionName)
	if b, err := statedir.ReadFile(path); err == nil {
		var d decision
		if json.Unmarshal(b, &d) == nil {
			out := map[string]string{}
			for _, c := range d.Conflicts {
				out[filepath.FromSlash(c.Path)] = c.Reason
			}
			return out, nil
		}
	}
	d := decision{Time: time.Now().UTC(), Conflicts: []conflictJSON{}}
	out := map[string]string{}
	// While a command ran (a snapshot left open), anything may have
	// changed any path: nothing the run left earlier tells the command's
	// changes from somebody else's, so every path goes back.
	if !t.m.snapshotOpen {
		for _, p := range paths {
			prior, now := t.m.prior[p], cur[p]
			left, ok := t.m.after[p]
			if !ok || now.same(prior) || now.same(left) {
				continue
			}
			why := fmt.Sprintf("changed by something else during the run (it was %s; the run left %s; it is now %s)", prior, left, now)
			out[p] = why
			d.Conflicts = append(d.Conflicts, conflictJSON{filepath.ToSlash(p), why})
		}
	}
	b, err := json.Marshal(d)
	if err == nil {
		err = statedir.WriteFile(path, b)
	}
	if err != nil {
		return nil, fmt.Errorf("journal: keep the rollback's decision: %w", err)
	}
	crashpoint.Hit("journal: rollback decided")
	return out, nil
}

// step is one path to put back.
type step struct {
	path       string
	prior, cur state
}

// inPlace reports whether only a file's mode is to be restored: same
// content, and no other link through which a chmod would reach a file
// outside the workspace.
func (s step) inPlace() bool {
	return s.cur.Kind == file && s.prior.Kind == file && s.cur.Hash == s.prior.Hash && s.cur.links <= 1
}

// restore puts every captured path back to its prior state, in an order
// that works: remove what is in the way (files, then folders, deepest
// first), recreate folders, write files and links, and set the folders'
// modes last, since a read-only folder would refuse its files. Nothing is
// written in the workspace but the paths themselves: a file is written
// afresh at its own path, so an interrupted write leaves only that path
// half done, and the next attempt removes it and writes it again.
func (t *target) restore() (Report, error) {
	var rep Report
	v := newView(t.root)
	paths := t.m.paths()
	cur := make(map[string]state, len(paths))
	for _, p := range paths {
		st, err := v.stat(p, nil)
		if err != nil {
			return rep, fmt.Errorf("journal: restore %s: %w", p, err)
		}
		cur[p] = st
	}
	leave, err := t.decide(paths, cur)
	if err != nil {
		return rep, err
	}
	// The saved contents are checked before anything changes: a path
	// whose content is damaged or missing is left as it is.
	failed := map[string]string{}
	for _, p := range paths {
		prior := t.m.prior[p]
		if prior.Kind != file || leave[p] != "" || (cur[p].Kind == file && cur[p].Hash == prior.Hash) {
			continue
		}
		if err := checkBlob(t.blobs, prior); err != nil {
			failed[p] = "its saved content cannot be read back: " + err.Error()
		}
	}
	var changes []step
	for _, p := range paths {
		prior, now := t.m.prior[p], cur[p]
		switch {
		case now.same(prior):
			continue
		case leave[p] != "":
			rep.Conflicts = append(rep.Conflicts, Conflict{p, leave[p]})
			continue
		case failed[p] != "":
			rep.Failed = append(rep.Failed, Conflict{p, failed[p]})
			continue
		case prior.Kind == other:
			rep.Conflicts = append(rep.Conflicts, Conflict{p, "a special file (a socket, a device, a FIFO) cannot be recreated; left as it is"})
			continue
		}
		if prior.Kind != absent {
			if a, ok := t.blockedBy(p, v, cur, leave); ok {
				why := fmt.Sprintf("its folder %s was changed by something else; left as it is", a)
				leave[p] = why
				rep.Conflicts = append(rep.Conflicts, Conflict{p, why})
				continue
			}
		}
		changes = append(changes, step{p, prior, now})
	}

	touched := map[string]bool{} // folders whose entries changed, to sync
	blocked := map[string]bool{} // paths whose place could not be cleared
	undo := func(c step, what string) {
		touched[filepath.Dir(c.path)] = true
		crashpoint.Hit("journal: restore: " + what)
	}

	// Clear what is in the way: anything but a folder, unless only a
	// file's mode is to change. A symlink is removed itself, never
	// followed.
	for _, c := range changes {
		if c.cur.Kind == absent || c.cur.Kind == dir || c.inPlace() {
			continue
		}
		if err := t.root.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return rep, fmt.Errorf("journal: remove %s: %w", c.path, err)
		}
		undo(c, "removed")
		if c.prior.Kind == absent {
			rep.Removed = append(rep.Removed, c.path)
		}
	}
	for _, c := range slices.Backward(changes) {
		if c.cur.Kind != dir || c.prior.Kind == dir {
			continue
		}
		if err := t.root.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
				blocked[c.path] = true
				why := "a folder the run created now holds files the run did not make; left in place"
				if c.prior.Kind != absent {
					why = fmt.Sprintf("the run put a folder where there was a %s, and it now holds files the run did not make; left in place", c.prior.Kind)
				}
				rep.Conflicts = append(rep.Conflicts, Conflict{c.path, why})
				continue
			}
			return rep, fmt.Errorf("journal: remove %s: %w", c.path, err)
		}
		undo(c, "removed folder")
		if c.prior.Kind == absent {
			rep.Removed = append(rep.Removed, c.path)
		}
	}

	// Put back what was there, parents first.
	for _, c := range changes {
		if c.prior.Kind != dir || c.cur.Kind == dir {
			continue
		}
		// Writable for now, so that its files can be restored; its own
		// mode comes last.
		if err := t.root.Mkdir(c.path, 0o700); err != nil {
			return rep, fmt.Errorf("journal: recreate %s: %w", c.path, err)
		}
		undo(c, "folder made")
		rep.Recreated = append(rep.Recreated, c.path)
	}
	for _, c := range changes {
		if blocked[c.path] {
			continue
		}
		switch c.prior.Kind {
		case file:
			if err := t.restoreFile(c); err != nil {
				return rep, fmt.Errorf("journal: restore %s: %w", c.path, err)
			}
		case symlink:
			if err := t.root.Symlink(c.prior.Target, c.path); err != nil {
				return rep, fmt.Errorf("journal: restore %s: %w", c.path, err)
			}
		default:
			continue
		}
		undo(c, "written")
		if c.cur.Kind == c.prior.Kind {
			rep.Restored = append(rep.Restored, c.path)
		} else {
			rep.Recreated = append(rep.Recreated, c.path)
		}
	}
	for _, c := range slices.Backward(changes) {
		if c.prior.Kind != dir {
			continue
		}
		if err := t.root.Chmod(c.path, c.prior.Mode); err != nil {
			return rep, fmt.Errorf("journal: restore mode of %s: %w", c.path, err)
		}
		undo(c, "folder mode set")
		if c.cur.Kind == dir {
			rep.Restored = append(rep.Restored, c.path)
		}
	}
	for _, d := range slices.Sorted(maps.Keys(touched)) {
		if err := syncRootDir(t.root, d); err != nil {
			return rep, fmt.Errorf("journal: sync %s: %w", d, err)
		}
	}
	slices.Sort(rep.Removed)
	slices.Sort(rep.Recreated)
	slices.Sort(rep.Restored)
	return rep, nil
}

// blockedBy returns the folder above p that keeps it from being put back:
// one left as it is (a conflict) that is not a folder now, or one the run
// never touched that something else replaced or removed.
func (t *target) blockedBy(p string, v *view, cur map[string]state, leave map[string]string) (string, bool) {
	parts := strings.Split(p, string(filepath.Separator))
	for i := 1; i < len(parts); i++ {
		a := filepath.Join(parts[:i]...)
		if _, captured := t.m.prior[a]; captured {
			if leave[a] != "" && cur[a].Kind != dir {
				return a, true
			}
			continue
		}
		if !v.isDir(a) {
			return a, true
		}
	}
	return "", false
}

// restoreFile writes the prior content of c.path from its blob into a
// fresh file at the path (removed first: see restore), with its mode, and
// syncs it. A fresh file, not the old one rewritten: a hard link the run
// made to a file outside the workspace must not carry the old content
// there.
func (t *target) restoreFile(c step) error {
	if c.inPlace() {
		return t.root.Chmod(c.path, c.prior.Mode)
	}
	src, err := openBlob(t.blobs, c.prior)
	if err != nil {
		return fmt.Errorf("saved content: %w", err)
	}
	defer src.Close()
	dst, err := t.root.OpenFile(c.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	if err == nil {
		// Through the descriptor: the mode lands on this very file.
		err = dst.Chmod(c.prior.Mode)
	}
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.root.Remove(c.path)
	}
	return err
}

// checkBlob reads a saved content through and checks its hash.
func checkBlob(blobs string, st state) error {
	r, err := openBlob(blobs, st)
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = io.Copy(io.Discard, r)
	return err
}

// syncRootDir syncs the folder d of root.
func syncRootDir(root *os.Root, d string) error {
	f, err := root.Open(d)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
