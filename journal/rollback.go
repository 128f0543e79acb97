package journal

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// Rollback restores the workspace to its state before the run and drops
// the journal: changed files get their content and mode back, created
// paths are removed, deleted ones recreated. A path that something else
// changed during the run is left as it is and reported as a conflict.
// Call Patch first if the attempt should be kept for a person. On an error
// the journal stays, and Recover can finish the work later.
func (j *Journal) Rollback() (Report, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return Report{}, ErrClosed
	}
	if err := adoptNew(j.root, j.m, j.skipped); err != nil {
		return Report{}, err
	}
	rep, err := restore(j.root, j.m, j.blobs)
	if err != nil {
		return rep, err
	}
	return rep, j.drop()
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

// step is one path to put back.
type step struct {
	path       string
	prior, cur state
}

// restore puts every captured path back to its prior state, in an order
// that works: remove what the run created (files, then folders, deepest
// first), recreate folders, restore files and links, and set the folders'
// modes last, since a read-only folder would refuse its files.
func restore(root *os.Root, m *model, blobs string) (Report, error) {
	var rep Report
	var changes []step
	for _, p := range m.paths() {
		prior := m.prior[p]
		cur, err := stat(root, p, nil)
		if err != nil {
			return rep, fmt.Errorf("journal: restore %s: %w", p, err)
		}
		if cur.same(prior) {
			continue
		}
		if left, ok := m.after[p]; ok && !cur.same(left) {
			rep.Conflicts = append(rep.Conflicts, Conflict{p, fmt.Sprintf(
				"changed by something else during the run (it was %s; the run left %s; it is now %s)", prior, left, cur)})
			continue
		}
		changes = append(changes, step{p, prior, cur})
	}
	blocked := map[string]bool{} // paths whose place could not be cleared
	dirs := map[string]bool{}    // folders whose entries changed, to sync

	// Clear what is in the way: anything that is not a file to be
	// rewritten in place.
	for _, c := range changes {
		if c.cur.Kind == absent || c.cur.Kind == dir || (c.cur.Kind == file && c.prior.Kind == file) {
			continue
		}
		if err := root.Remove(c.path); err != nil {
			return rep, fmt.Errorf("journal: remove %s: %w", c.path, err)
		}
		dirs[filepath.Dir(c.path)] = true
		if c.prior.Kind == absent {
			rep.Removed = append(rep.Removed, c.path)
		}
	}
	for _, c := range slices.Backward(changes) {
		if c.cur.Kind != dir || c.prior.Kind == dir {
			continue
		}
		if err := root.Remove(c.path); err != nil {
			if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
				blocked[c.path] = true
				rep.Conflicts = append(rep.Conflicts, Conflict{c.path,
					"a folder the run created now holds files the run did not make; left in place"})
				continue
			}
			return rep, fmt.Errorf("journal: remove %s: %w", c.path, err)
		}
		dirs[filepath.Dir(c.path)] = true
		if c.prior.Kind == absent {
			rep.Removed = append(rep.Removed, c.path)
		}
	}

	// Put back what was there.
	for _, c := range changes {
		if c.prior.Kind != dir || c.cur.Kind == dir || blocked[c.path] {
			continue
		}
		// Writable for now, so that its files can be restored; its own
		// mode comes last.
		if err := root.Mkdir(c.path, 0o700); err != nil {
			return rep, fmt.Errorf("journal: recreate %s: %w", c.path, err)
		}
		dirs[filepath.Dir(c.path)] = true
		rep.Recreated = append(rep.Recreated, c.path)
	}
	for _, c := range changes {
		if blocked[c.path] {
			continue
		}
		switch c.prior.Kind {
		case file:
			if err := restoreFile(root, blobs, c); err != nil {
				return rep, fmt.Errorf("journal: restore %s: %w", c.path, err)
			}
		case symlink:
			if err := root.Symlink(c.prior.Target, c.path); err != nil {
				return rep, fmt.Errorf("journal: restore %s: %w", c.path, err)
			}
		default:
			continue
		}
		dirs[filepath.Dir(c.path)] = true
		if c.cur.Kind == c.prior.Kind {
			rep.Restored = append(rep.Restored, c.path)
		} else {
			rep.Recreated = append(rep.Recreated, c.path)
		}
	}
	for _, c := range slices.Backward(changes) {
		if c.prior.Kind != dir || blocked[c.path] {
			continue
		}
		if err := root.Chmod(c.path, c.prior.Mode); err != nil {
			return rep, fmt.Errorf("journal: restore mode of %s: %w", c.path, err)
		}
		if c.cur.Kind == dir {
			rep.Restored = append(rep.Restored, c.path)
		}
	}
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		if err := syncRootDir(root, d); err != nil {
			return rep, fmt.Errorf("journal: sync %s: %w", d, err)
		}
	}
	slices.Sort(rep.Removed)
	slices.Sort(rep.Recreated)
	slices.Sort(rep.Restored)
	return rep, nil
}

// restoreFile writes the prior content of c.path from its blob to a
// temporary file beside it, checks the hash, and renames it into place,
// so that the path holds the old content or the new, never a mix.
func restoreFile(root *os.Root, blobs string, c step) error {
	if c.cur.Kind == file && c.cur.Hash == c.prior.Hash {
		return root.Chmod(c.path, c.prior.Mode)
	}
	src, err := openBlob(blobs, c.prior)
	if err != nil {
		return fmt.Errorf("saved content: %w", err)
	}
	defer src.Close()
	tmp := filepath.Join(filepath.Dir(c.path), fmt.Sprintf(".nightshift-restore-%d", os.Getpid()))
	dst, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Chmod(tmp, c.prior.Mode)
	}
	if err == nil {
		err = root.Rename(tmp, c.path)
	}
	if err != nil {
		root.Remove(tmp)
	}
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
