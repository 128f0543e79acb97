//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package flock_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/internal/flock"
)

type doc struct {
	Version int    `json:"version"`
	Note    string `json:"note"`
}

// TestASharedFileReadsBackWhatWasSavedAndOnlyThat: a shorter state saved
// over a longer one leaves nothing of it behind, an empty file says so,
// and a file cut short is reported unreadable, not decoded.
func TestASharedFileReadsBackWhatWasSavedAndOnlyThat(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "limits")
	s, err := flock.OpenShared(dir, "state.json", "test: ")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var d doc
	if empty, ok := s.Load(&d, 1<<10); !empty || ok {
		t.Fatalf("a new file: empty %t ok %t, want empty", empty, ok)
	}
	if !s.Lock() {
		t.Fatal(s.Err())
	}
	s.Save(doc{Version: 1, Note: strings.Repeat("long ", 20)})
	s.Save(doc{Version: 1, Note: "short"})
	s.Unlock()
	if empty, ok := s.Load(&d, 1<<10); empty || !ok || d.Note != "short" {
		t.Fatalf("Load = %+v (empty %t ok %t), want the last save", d, empty, ok)
	}
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(`{"version":1,"no`), 0o600); err != nil {
		t.Fatal(err)
	}
	if empty, ok := s.Load(&d, 1<<10); empty || ok {
		t.Errorf("a file cut short: empty %t ok %t, want unreadable", empty, ok)
	}
	if s.Err() != nil {
		t.Errorf("Err = %v", s.Err())
	}
}

func TestASharedFileIsNeverOpenedThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere.json")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "state.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := flock.OpenShared(dir, "state.json", "test: "); err == nil || !strings.HasPrefix(err.Error(), "test: file: ") {
		t.Errorf("OpenShared through a symlink: %v, want a refusal starting with the prefix", err)
	}
}
