package journal

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Pending returns the runs that died midway in the workspace whose state
// folder is stateDir: their journals are still there and no live process
// holds them. Newest first. None is not an error.
func Pending(stateDir string) ([]string, error) {
	dead, _, err := scan(stateDir)
	return dead, err
}

// Recover restores the workspace root from every pending journal in
// stateDir, newest first (each one's prior state is older than the next
// one's), and drops each journal once its run is undone. Nothing to do is
// not an error: it returns an empty Report.
func Recover(root, stateDir string) (Report, error) {
	var rep Report
	dead, _, err := scan(stateDir)
	if err != nil || len(dead) == 0 {
		return rep, err
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return rep, fmt.Errorf("journal: %w", err)
	}
	absState, err := filepath.Abs(stateDir)
	if err != nil {
		return rep, fmt.Errorf("journal: %w", err)
	}
	r, err := os.OpenRoot(absRoot)
	if err != nil {
		return rep, fmt.Errorf("journal: %w", err)
	}
	defer r.Close()
	skip := func(string) bool { return false }
	if rel, err := filepath.Rel(absRoot, absState); err == nil && filepath.IsLocal(rel) {
		skip = func(p string) bool { return p == rel || isUnder(p, rel) }
	}
	for _, run := range dead {
		one, err := recoverOne(r, journalsDir(absState), run, skip)
		rep.merge(one)
		if err != nil {
			return rep, fmt.Errorf("journal: recover run %s: %w", run, err)
		}
	}
	return rep, nil
}

func recoverOne(r *os.Root, jdir, run string, skip func(string) bool) (Report, error) {
	dir := filepath.Join(jdir, run)
	logPath := filepath.Join(dir, logName)
	f, err := os.Open(logPath)
	if errors.Is(err, fs.ErrNotExist) {
		// It died before its first record: it changed nothing.
		return Report{}, dropDir(dir)
	}
	if err != nil {
		return Report{}, err
	}
	defer f.Close()
	// Hold the run's lock while restoring, so that no other recover or
	// run works on it at the same time.
	if err := lock(f); err != nil {
		return Report{}, err
	}
	m, err := readLog(logPath)
	if err != nil {
		return Report{}, err
	}
	if err := adoptNew(r, m, skip); err != nil {
		return Report{}, err
	}
	rep, err := restore(r, m, filepath.Join(dir, blobsName))
	if err != nil {
		return rep, err
	}
	return rep, dropDir(dir)
}

// dropDir removes a journal folder durably.
func dropDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return syncDir(filepath.Dir(dir))
}

// scan lists the journals in stateDir: dead ones (no process holds their
// lock), newest first, and live ones.
func scan(stateDir string) (dead, live []string, err error) {
	entries, err := os.ReadDir(journalsDir(stateDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("journal: %w", err)
	}
	begun := map[string]time.Time{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		run := e.Name()
		logPath := filepath.Join(journalsDir(stateDir), run, logName)
		f, err := os.Open(logPath)
		if errors.Is(err, fs.ErrNotExist) {
			dead = append(dead, run)
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("journal: %w", err)
		}
		err = lock(f)
		f.Close()
		if errors.Is(err, errLocked) {
			live = append(live, run)
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("journal: %w", err)
		}
		dead = append(dead, run)
		if m, err := readLog(logPath); err == nil {
			begun[run] = m.begun
		}
	}
	slices.SortFunc(dead, func(a, b string) int {
		return cmp.Or(begun[b].Compare(begun[a]), strings.Compare(b, a))
	})
	return dead, live, nil
}
