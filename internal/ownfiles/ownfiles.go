package ownfiles

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

var (
	mu    sync.Mutex
	files = map[string]int{} // real path → how many times it was added
)

// Add records path as a file this process writes for itself, until the
// returned function is called (once is enough; more calls do nothing).
// The path is made absolute and its folder's symlinks resolved, so that
// it matches the workspace's real path; the file need not exist yet.
func Add(path string) (remove func()) {
	p := real(path)
	if p == "" {
		return func() {}
	}
	mu.Lock()
	files[p]++
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			if files[p]--; files[p] <= 0 {
				delete(files, p)
			}
		})
	}
}

// AddSQLite records a SQLite database and the files SQLite keeps beside
// it (-wal, -shm, -journal).
func AddSQLite(path string) (remove func()) {
	var rs []func()
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		rs = append(rs, Add(path+suffix))
	}
	return func() {
		for _, r := range rs {
			r()
		}
	}
}

// In returns the files recorded that lie inside the folder dir, as paths
// relative to it (with the platform's separator), sorted.
func In(dir string) []string {
	d := real(dir)
	if d == "" {
		return nil
	}
	mu.Lock()
	defer mu.Unlock()
	var out []string
	for p := range files {
		rel, err := filepath.Rel(d, p)
		if err == nil && filepath.IsLocal(rel) && !strings.HasPrefix(rel, "..") {
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return out
}

// real returns path absolute, with the symlinks of its folder resolved
// (and of the path itself when it exists and is one).
func real(path string) string {
	if path == "" {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	dir, name := filepath.Split(abs)
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(r, name)
	}
	return abs
}
