package workspace

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO is opened without waiting for a writer and refused, so that a
// read or an edit that got past the tools' own check cannot hang (issue
// 11).
func TestReadsAndEditsRefuseAFIFOWithoutWaiting(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for name, f := range map[string]func() error{
		"ReadHead": func() error { _, _, err := r.ReadHead("pipe", 10); return err },
		"ReadFile": func() error { _, err := r.ReadFile("pipe"); return err },
		"Edit": func() error {
			_, err := r.Edit("pipe", func(b []byte) ([]byte, error) { return append(b, 'x'), nil })
			return err
		},
	} {
		done := make(chan error, 1)
		go func() { done <- f() }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("%s: %v, want ErrNotRegular", name, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s hung on a FIFO", name)
		}
	}
}

func TestResolveFollowsLinksInside(t *testing.T) {
	f := setup(t)
	got, err := f.root.Resolve("good-link")
	if err != nil {
		t.Fatal(err)
	}
	if got != "docs/a.md" {
		t.Errorf("Resolve(good-link) = %q", got)
	}
}
