package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

// The workspace's fs.FS is a file system as io/fs means one.
func TestFSIsAFileSystem(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"README.md": "# hi\n", "docs/a.md": "a\n", "docs/deep/b.md": "b\n"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := fstest.TestFS(r.FS(), "README.md", "docs/a.md", "docs/deep/b.md"); err != nil {
		t.Error(err)
	}
}

// Through the fs.FS, a symlink that leads out, the state folder and a
// FIFO are refused, each with its sentinel, and the FIFO at once: every
// way in (Open, Stat, ReadFile, fs.ReadFile) keeps the Root's rules.
func TestFSKeepsTheWorkspaceRules(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("key"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "abs-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../"+filepath.Base(outside)+"/secret", filepath.Join(dir, "rel-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, StateDirName), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, StateDirName, "journal"), []byte("j"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fsys := r.FS()
	reads := map[string]func(string) error{
		"Open": func(n string) error {
			f, err := fsys.Open(n)
			if err == nil {
				f.Close()
			}
			return err
		},
		"ReadFile": func(n string) error { _, err := fs.ReadFile(fsys, n); return err },
	}
	for _, tt := range []struct {
		name string
		want error
	}{
		{"abs-link", ErrOutside},
		{"rel-link", ErrOutside},
		{StateDirName + "/journal", ErrStateDir},
		{"pipe", ErrNotRegular},
		{"../x", fs.ErrInvalid},
	} {
		for how, read := range reads {
			done := make(chan error, 1)
			go func() { done <- read(tt.name) }()
			select {
			case err := <-done:
				var pe *fs.PathError
				if !errors.Is(err, tt.want) || !errors.As(err, &pe) || pe.Path != tt.name {
					t.Errorf("%s(%q) = %v, want an *fs.PathError for %q wrapping %v", how, tt.name, err, tt.name, tt.want)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("%s(%q) hung", how, tt.name)
			}
		}
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == StateDirName {
			t.Errorf("the state folder is listed")
		}
	}
}
