package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nightshift-dev/nightshift/internal/crashpoint"
	"github.com/nightshift-dev/nightshift/statedir"
)

// target is a journal being applied to its workspace: by Rollback, or by
// Recover after the run died.
type target struct {
	ctx   context.Context
	root  *os.Root
	dir   string // the run's journal folder; rollback.json is kept there
	blobs string // the folder of its packs
	m     *model
	skip  func(string) bool
	cache *statCache // the live journal's; nil for recover
	// legacy is set for a journal an earlier version left in the
	// workspace, which the run could have written: it never touches a
	// protected path, not even to remove what it says the run made.
	legacy bool
	// dry lists what the rollback would do, and does nothing.
	dry bool
	// protected reports the paths no journal writes (protect.go).
	protected func(string) bool
}

// rollback puts the workspace back as the journal says it was. It can be
// stopped at any point (the process killed, ctx cancelled) and run again:
// each run picks up where the last one stopped, and ends in the same
// place.
func (t *target) rollback() (Report, error) {
	if err := adoptNew(t.ctx, t.root, t.m, t.skip); err != nil {
		return Report{}, err
	}
	return t.restore()
}

// adoptNew handles a snapshot left open (the process died, or the tool
// never returned): every path not captured appeared while the command ran,
// so it counts as created by the run.
func adoptNew(ctx context.Context, root *os.Root, m *model, skip func(string) bool) error {
	if !m.snapshotOpen {
		return nil
	}
	return walk(ctx, root, ".", skip, func(x visit) error {
		if _, ok := m.prior[x.rel]; !ok {
			m.prior[x.rel] = state{Kind: absent}
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
	Path      string `json:"path"`
	PathBytes []byte `json:"path_bytes,omitempty"`
	Reason    string `json:"reason"`
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
				out[filepath.FromSlash(c.path())] = c.Reason
			}
			return out, nil
		}
	}
	d := decision{Time: time.Now().UTC(), Conflicts: []conflictJSON{}}
	if t.dry {
		// A listing decides nothing for later.
		path = ""
	}
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
			d.Conflicts = append(d.Conflicts, packConflict(filepath.ToSlash(p), why))
		}
	}
	if path == "" {
		return out, nil
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
// half done, and the next attempt removes it and writes it again. Every
// path is reached through its open parent folder (a cursor), never
// through a symlink, and nothing is written under a protected path
// (protect.go).
func (t *target) restore() (Report, error) {
	var rep Report
	v := newView(t.ctx, t.root, t.cache)
	defer v.close()
	if t.m.format < format {
		// An earlier version's journal: its hashes are all plain.
		v.cache, v.plain = nil, true
	}
	paths := t.m.paths()
	cur := make(map[string]state, len(paths))
	for _, p := range paths {
		st, err := v.stat(p, nil, nil)
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
		if prior.Kind != file || leave[p] != "" || (cur[p].Kind == file && cur[p].Hash == prior.Hash) || t.refused(p, prior) {
			continue
		}
		if err := checkBlob(t.ctx, t.blobs, prior); err != nil {
			if t.ctx.Err() != nil {
				return rep, t.ctx.Err()
			}
			failed[p] = "its saved content cannot be read back: " + err.Error()
		}
	}
	var changes []step
	blocking := &blockers{t: t, v: v, cur: cur, leave: leave, memo: map[string]string{}}
	for _, p := range paths {
		prior, now := t.m.prior[p], cur[p]
		switch {
		case now.same(prior):
			continue
		case t.refused(p, prior):
			rep.Protected = append(rep.Protected, Conflict{p, protectedReason})
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
			if a, ok := blocking.of(p); ok {
				why := fmt.Sprintf("its folder %s was changed by something else; left as it is", a)
				leave[p] = why
				rep.Conflicts = append(rep.Conflicts, Conflict{p, why})
				continue
			}
		}
		changes = append(changes, step{p, prior, now})
	}
	if t.dry {
		return t.listing(rep, changes), nil
	}
	v.close()
	return t.apply(rep, changes)
}

// refused reports whether the rollback leaves p alone because it is
// protected: no journal writes there, and a legacy one (which the run
// could have written) does not even remove what it says the run made.
func (t *target) refused(p string, prior state) bool {
	if t.protected == nil || !t.protected(p) {
		return false
	}
	return t.legacy || prior.Kind != absent
}

// protectedReason says why a protected path was left as it is.
const protectedReason = "protected (a .git, a core.hooksPath folder, a gitfile's target or a file git's configuration names: git runs what is written there): no journal writes there; left as it is"

// listing is the Report a rollback would make, without making it.
func (t *target) listing(rep Report, changes []step) Report {
	for _, c := range changes {
		switch {
		case c.prior.Kind == absent:
			rep.Removed = append(rep.Removed, c.path)
		case c.cur.Kind == c.prior.Kind:
			rep.Restored = append(rep.Restored, c.path)
		default:
			rep.Recreated = append(rep.Recreated, c.path)
		}
	}
	return rep
}

// apply makes the changes restore decided.
func (t *target) apply(rep Report, changes []step) (Report, error) {
	c := newCursor(t.root)
	defer c.close()
	touched := map[string]bool{} // folders whose entries changed, to sync
	blocked := map[string]bool{} // paths whose place could not be cleared
	// Folders that hold a path left in place: they cannot go either, and
	// the path is named, not each folder above it.
	holdsBlocked := map[string]bool{}
	undo := func(s step, what string) {
		touched[filepath.Dir(s.path)] = true
		crashpoint.Hit("journal: restore: " + what)
	}
	// parent opens the folder of p, which must be a real folder.
	parent := func(p string) (*os.Root, string, error) {
		d, name, err := c.parent(p)
		if err == nil && d == nil {
			err = fmt.Errorf("its folder %s is not there", filepath.Dir(p))
		}
		return d, name, err
	}
	remove := func(p string) error {
		d, name, err := c.parent(p)
		if err != nil || d == nil {
			return err // no real folder above it: nothing of ours is there
		}
		err = d.Remove(name)
		c.forget(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}

	// Clear what is in the way: anything but a folder, unless only a
	// file's mode is to change. A symlink is removed itself, never
	// followed.
	for _, s := range changes {
		if err := t.ctx.Err(); err != nil {
			return rep, err
		}
		if s.cur.Kind == absent || s.cur.Kind == dir || s.inPlace() {
			continue
		}
		if err := remove(s.path); err != nil {
			return rep, fmt.Errorf("journal: remove %s: %w", s.path, err)
		}
		undo(s, "removed")
		if s.prior.Kind == absent {
			rep.Removed = append(rep.Removed, s.path)
		}
	}
	for _, s := range slices.Backward(changes) {
		if err := t.ctx.Err(); err != nil {
			return rep, err
		}
		if s.cur.Kind != dir || s.prior.Kind == dir {
			continue
		}
		if err := remove(s.path); err != nil {
			if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
				blocked[s.path] = true
				holdsBlocked[filepath.Dir(s.path)] = true
				if holdsBlocked[s.path] {
					continue // what is below it is named already
				}
				why := "a folder the run created now holds files the run did not make (or a tree deeper than the journal follows); left in place"
				if s.prior.Kind != absent {
					why = fmt.Sprintf("the run put a folder where there was a %s, and it now holds files the run did not make; left in place", s.prior.Kind)
				}
				rep.Conflicts = append(rep.Conflicts, Conflict{s.path, why})
				continue
			}
			return rep, fmt.Errorf("journal: remove %s: %w", s.path, err)
		}
		undo(s, "removed folder")
		if s.prior.Kind == absent {
			rep.Removed = append(rep.Removed, s.path)
		}
	}

	// Put back what was there, parents first.
	for _, s := range changes {
		if s.prior.Kind != dir || s.cur.Kind == dir {
			continue
		}
		d, name, err := parent(s.path)
		if err == nil {
			// Writable for now, so that its files can be restored; its
			// own mode comes last.
			err = d.Mkdir(name, 0o700)
			c.forget(s.path)
		}
		if err != nil {
			return rep, fmt.Errorf("journal: recreate %s: %w", s.path, err)
		}
		undo(s, "folder made")
		rep.Recreated = append(rep.Recreated, s.path)
	}
	for _, s := range changes {
		if err := t.ctx.Err(); err != nil {
			return rep, err
		}
		if blocked[s.path] {
			continue
		}
		switch s.prior.Kind {
		case file, symlink:
			d, name, err := parent(s.path)
			if err == nil {
				if s.prior.Kind == file {
					err = t.restoreFile(d, name, s)
				} else {
					err = d.Symlink(s.prior.Target, name)
				}
			}
			if err != nil {
				return rep, fmt.Errorf("journal: restore %s: %w", s.path, err)
			}
		default:
			continue
		}
		undo(s, "written")
		if s.cur.Kind == s.prior.Kind {
			rep.Restored = append(rep.Restored, s.path)
		} else {
			rep.Recreated = append(rep.Recreated, s.path)
		}
	}
	for _, s := range slices.Backward(changes) {
		if s.prior.Kind != dir {
			continue
		}
		d, name, err := parent(s.path)
		if err == nil {
			err = d.Chmod(name, s.prior.Mode)
		}
		if err != nil {
			return rep, fmt.Errorf("journal: restore mode of %s: %w", s.path, err)
		}
		undo(s, "folder mode set")
		if s.cur.Kind == dir {
			rep.Restored = append(rep.Restored, s.path)
		}
	}
	if err := syncTouched(c, touched); err != nil {
		return rep, err
	}
	for _, s := range changes {
		t.cache.forget(s.path)
	}
	slices.Sort(rep.Removed)
	slices.Sort(rep.Recreated)
	slices.Sort(rep.Restored)
	return rep, nil
}

// blockers finds the folder above a path that keeps it from being put
// back: one left as it is (a conflict) that is not a folder now, or one
// the run never touched that something else replaced or removed. Each
// folder is looked at once, however many paths lie below it, so a tree
// thousands of levels deep costs its depth, not the square of it.
type blockers struct {
	t     *target
	v     *view
	cur   map[string]state
	leave map[string]string
	memo  map[string]string // folder → the folder that blocks it, or ""
}

// of returns the folder that blocks p, if any.
func (b *blockers) of(p string) (string, bool) {
	a := b.dir(filepath.Dir(p))
	return a, a != ""
}

func (b *blockers) dir(d string) string {
	if d == "." || d == "" {
		return ""
	}
	if a, ok := b.memo[d]; ok {
		return a
	}
	a := b.dir(filepath.Dir(d))
	if a == "" {
		if _, captured := b.t.m.prior[d]; captured {
			if b.leave[d] != "" && b.cur[d].Kind != dir {
				a = d
			}
		} else if !b.v.isDir(d) {
			a = d
		}
	}
	b.memo[d] = a
	return a
}

// restoreFile writes the prior content of s.path from its blob into a
// fresh file name in its folder d (removed first: see restore), with its
// mode, and syncs it. A fresh file, not the old one rewritten: a hard link
// the run made to a file outside the workspace must not carry the old
// content there. Content saved in the zero-run form gets its holes back.
func (t *target) restoreFile(d *os.Root, name string, s step) error {
	if s.inPlace() {
		return d.Chmod(name, s.prior.Mode)
	}
	src, err := openBlob(t.blobs, s.prior)
	if err != nil {
		return fmt.Errorf("saved content: %w", err)
	}
	defer src.Close()
	dst, err := d.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	if isZ1(s.prior.Hash) {
		err = writeZ1(t.ctx, dst, src)
		if err == nil {
			// Read to its end, so that the hash is checked.
			_, err = io.Copy(io.Discard, src)
		}
	} else {
		_, err = copyContext(t.ctx, dst, src)
	}
	if err == nil {
		// Through the descriptor: the mode lands on this very file.
		err = dst.Chmod(s.prior.Mode)
	}
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		d.Remove(name)
	}
	return err
}

// checkBlob reads a saved content through and checks its hash.
func checkBlob(ctx context.Context, blobs string, st state) error {
	r, err := openBlob(blobs, st)
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = copyContext(ctx, io.Discard, r)
	return err
}

// manySyncs is how many folders a rollback syncs one by one; past it, it
// syncs the file system once (syncfs), which costs one flush, not
// thousands (a tree 2,500 levels deep touches 5,000 folders).
const manySyncs = 64

// syncTouched makes the entries of the folders a rollback changed
// durable.
func syncTouched(c *cursor, touched map[string]bool) error {
	if len(touched) > manySyncs {
		f, err := c.top.Open(".")
		if err != nil {
			return fmt.Errorf("journal: sync: %w", err)
		}
		defer f.Close()
		if err := unix.Syncfs(int(f.Fd())); err != nil {
			return fmt.Errorf("journal: sync: %w", err)
		}
		return nil
	}
	for _, d := range slices.Sorted(maps.Keys(touched)) {
		if err := syncDirIn(c, d); err != nil {
			return fmt.Errorf("journal: sync %s: %w", d, err)
		}
	}
	return nil
}

// syncDirIn syncs the folder d, through the cursor.
func syncDirIn(c *cursor, d string) error {
	dir, err := c.dir(d)
	if err != nil || dir == nil {
		return err
	}
	f, err := dir.Open(".")
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
