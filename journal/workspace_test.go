package journal_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nightshift-dev/nightshift/internal/crashpoint"
	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/workspace"
)

// TestWithTheWorkspace plugs the journal into a real workspace, as a run
// does, and rolls back what its writes, edits and removals did.
func TestWithTheWorkspace(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep.md"), []byte("one\ntwo\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gone.md"), []byte("bye\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := snapshotTree(t, dir)

	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	j, err := journal.Begin(ws.Dir(), t.TempDir(), "run-ws")
	if err != nil {
		t.Fatal(err)
	}
	ws.SetGuard(j.Before)
	ws.SetAfter(j.After)

	if err := ws.WriteFile("a/b/new.md", []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Edit("keep.md", func(old []byte) ([]byte, error) { return []byte("one\n2\n"), nil }); err != nil {
		t.Fatal(err)
	}
	if err := ws.Remove("gone.md"); err != nil {
		t.Fatal(err)
	}
	rep, err := j.Rollback()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, snapshotTree(t, dir)); diff != "" {
		t.Errorf("workspace after rollback (-before +now):\n%s", diff)
	}
	want := journal.Report{
		Restored:  []string{"keep.md"},
		Removed:   []string{"a", "a/b", "a/b/new.md"},
		Recreated: []string{"gone.md"},
	}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}

// snapshotTree lists every path with its mode and content.
func snapshotTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, _ := os.ReadFile(p)
		out[rel] = info.Mode().String() + " " + string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAKillAtAnyPointOfAWorkspaceWriteIsRecovered kills (in effect) a run
// at every crash point of the workspace's writes and the journal's steps,
// the moment between a staged write and its rename included: recovery
// leaves the workspace exactly as it was, with no staged file behind.
func TestAKillAtAnyPointOfAWorkspaceWriteIsRecovered(t *testing.T) {
	points := 0
	for k := 1; ; k++ {
		dir := t.TempDir()
		state := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "keep.md"), []byte("one\n"), 0o640); err != nil {
			t.Fatal(err)
		}
		before := snapshotTree(t, dir)
		ws, err := workspace.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		j, err := journal.Begin(ws.Dir(), state, "run")
		if err != nil {
			t.Fatal(err)
		}
		ws.SetGuard(j.Before)
		ws.SetAfter(j.After)
		at := ""
		n := 0
		crashpoint.Set(func(name string) {
			if n++; n == k {
				at = name
				runtime.Goexit()
			}
		})
		done := make(chan struct{})
		go func() {
			defer close(done)
			ws.WriteFile("a/b/new.md", []byte("new\n"), 0o644)
			ws.Edit("keep.md", func([]byte) ([]byte, error) { return []byte("two\n"), nil })
			ws.WriteFile("keep.md", []byte("three\n"), 0o644)
			ws.Remove("a/b/new.md")
		}()
		<-done
		crashpoint.Set(nil)
		ws.Close()
		if at == "" {
			j.Commit()
			break
		}
		points++
		// The process is gone: its journal's lock with it. A second
		// journal handle stands in for the next process.
		journal.Abandon(j)
		if _, err := journal.Recover(dir, state); err != nil {
			t.Fatalf("killed at %s (point %d): %v", at, k, err)
		}
		if diff := cmp.Diff(before, snapshotTree(t, dir)); diff != "" {
			t.Fatalf("killed at %s (point %d): workspace after recover (-before +now):\n%s", at, k, diff)
		}
	}
	t.Logf("killed at each of %d points of four workspace changes; recover restored every one", points)
}
