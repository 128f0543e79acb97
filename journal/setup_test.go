package journal

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// setup makes a workspace with a little of everything, and returns its
// root and its state folder, outside it.
func setup(t *testing.T) (root, stateDir string) {
	t.Helper()
	root = t.TempDir()
	stateDir = t.TempDir()
	mkdir(t, root, "bin", 0o755)
	mkdir(t, root, "docs", 0o750)
	mkdir(t, root, "docs/deep", 0o755)
	write(t, root, "a.txt", "alpha\n", 0o644)
	write(t, root, "bin/run.sh", "#!/bin/sh\necho run\n", 0o755)
	write(t, root, "docs/readme.md", "# readme\n", 0o600)
	write(t, root, "docs/deep/note.txt", "deep\n", 0o644)
	if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	return root, stateDir
}

func mkdir(t *testing.T, root, rel string, mode fs.FileMode) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.Mkdir(p, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, root, rel, content string, mode fs.FileMode) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// tree describes every path of the workspace: kind, mode and content,
// exactly; it does not enter the folders named in skip.
func tree(t *testing.T, root string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		if slices.Contains(skip, rel) {
			return fs.SkipDir
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "symlink -> " + target
		case info.IsDir():
			out[rel] = fmt.Sprintf("dir %v", info.Mode().Perm())
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("file %v %q", info.Mode().Perm(), b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// begin starts a journal for the test's workspace; it is rolled back or
// committed by the test, or simply abandoned when the test ends.
func begin(t *testing.T, root, stateDir string) *Journal {
	t.Helper()
	j, err := Begin(root, stateDir, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// change does what a workspace does for a tool: guard, change, after.
func change(t *testing.T, j *Journal, rel string, fn func() error) {
	t.Helper()
	if err := j.Before(rel); err != nil {
		t.Fatalf("Before(%s): %v", rel, err)
	}
	if err := fn(); err != nil {
		t.Fatalf("change %s: %v", rel, err)
	}
	j.After(rel)
}

// die simulates the process dying: the lock goes with it, the journal
// stays on disk.
func die(j *Journal) {
	j.lockF.Close()
	if j.afterF != nil {
		j.afterF.Close()
	}
	j.root.Close()
	j.done = true
}
