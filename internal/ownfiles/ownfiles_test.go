package ownfiles

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestTheFilesInAFolderAreFoundByTheirRealPath(t *testing.T) {
	ws := t.TempDir()
	link := filepath.Join(t.TempDir(), "ws-link")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	doneEvents := Add(filepath.Join(link, "events.jsonl"))
	doneDB := AddSQLite(filepath.Join(ws, "state", "night.db"))
	doneOut := Add(filepath.Join(t.TempDir(), "elsewhere.jsonl"))
	defer doneOut()
	want := []string{"events.jsonl", "state/night.db", "state/night.db-journal", "state/night.db-shm", "state/night.db-wal"}
	if got := In(ws); !slices.Equal(got, want) {
		t.Errorf("In(ws) = %v, want %v", got, want)
	}
	doneEvents()
	doneEvents()
	doneDB()
	if got := In(ws); len(got) != 0 {
		t.Errorf("In(ws) after the files were let go = %v, want none", got)
	}
}
