package statedir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/nightshift-dev/nightshift/internal/crashpoint"
)

// OpenFile opens a state file like os.OpenFile, but never through a
// symlink at its last component (O_NOFOLLOW): a link planted where a state
// file belongs (say, by a repository that ships a .nightshift/audit.jsonl
// symlink) is refused, not followed. Every state folder is made by
// MkdirPrivate, which refuses a symlink too.
func OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW, perm)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("statedir: %s is a symlink; refusing to follow it", path)
	}
	return f, err
}

// ReadFile reads a state file without following a symlink.
func ReadFile(path string) ([]byte, error) {
	f, err := OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("statedir: %s is not a regular file", path)
	}
	return io.ReadAll(f)
}

// WriteFile replaces the state file at path with data, atomically: a
// reader (or a process that starts after a crash) sees the old content or
// the new, never half. The file is private (0600) and synced, and so is
// its folder, before WriteFile returns.
func WriteFile(path string, data []byte) error { return WriteFileMarked(path, data, "", "") }

// WriteFileMarked is WriteFile with two crash points (internal/crashpoint)
// in it: written once the data is synced beside path and not yet renamed
// onto it, renamed once it is and the folder is not yet synced. An empty
// name marks no point. The journal writes its steps with it, so that its
// crash tests can stop a step between the two; every atomic write of a
// state file is this one sequence, kept here beside OpenFile.
func WriteFileMarked(path string, data []byte, written, renamed string) error {
	dir, name := filepath.Split(path)
	tmp := filepath.Join(dir, "."+name+".tmp")
	os.Remove(tmp) // a leftover of a crash; a symlink is removed, not followed
	f, err := OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
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
		hit(written)
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	hit(renamed)
	return SyncDir(dir)
}

// hit marks the crash point name, if it is one.
func hit(name string) {
	if name != "" {
		crashpoint.Hit(name)
	}
}

// SyncDir makes the entries of a folder (files created, renamed or
// removed in it) durable.
func SyncDir(path string) error {
	d, err := OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Prune removes, from a workspace's state folder, the run records and
// checkpoints last changed more than keep before now, and returns their
// paths. keep <= 0 keeps everything. A pending journal is never pruned:
// it holds the only copy of what a dead run changed; nor is the
// checkpoint of a run whose journal is pending, which it resumes from.
func Prune(wsState string, keep time.Duration, now time.Time) ([]string, error) {
	if keep <= 0 {
		return nil, nil
	}
	cutoff := now.Add(-keep)
	var removed []string
	var errs []error
	for _, sub := range []string{RunsName, CheckpointsName} {
		dir := filepath.Join(wsState, sub)
		fi, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil || !fi.IsDir() {
			errs = append(errs, fmt.Errorf("statedir: prune %s: not a folder", dir))
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			errs = append(errs, fmt.Errorf("statedir: prune: %w", err))
			continue
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			info, err := os.Lstat(p)
			if err != nil || !info.ModTime().Before(cutoff) {
				continue
			}
			if sub == CheckpointsName {
				// A paused run's checkpoint lives as long as its journal:
				// without it the run could only be undone, never resumed.
				if _, err := os.Lstat(filepath.Join(wsState, JournalName, e.Name())); err == nil {
					continue
				}
			}
			// RemoveAll does not follow a symlink: a link is removed
			// itself, never what it points to.
			if err := os.RemoveAll(p); err != nil {
				errs = append(errs, fmt.Errorf("statedir: prune: %w", err))
				continue
			}
			removed = append(removed, p)
		}
	}
	return removed, errors.Join(errs...)
}
