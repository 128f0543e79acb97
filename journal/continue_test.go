package journal_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/workspace"
)

// suspended returns a workspace where run "first" changed notes.md and
// made one.md, then was suspended; and the tree before it.
func suspended(t *testing.T) (*workspace.Root, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshotTree(t, dir)
	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	tx, err := journal.Attach(ws, ws.StateDir(), "first")
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.WriteFile("notes.md", []byte("first\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ws.WriteFile("one.md", []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := tx.Suspend(); err != nil {
		t.Fatal(err)
	}
	return ws, before
}

// continueRun attaches run "second" over the suspended one and changes the
// workspace further.
func continueRun(t *testing.T, ws *workspace.Root) *journal.Tx {
	t.Helper()
	tx, err := journal.AttachOver(ws, ws.StateDir(), "second")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"first"}, tx.Over()); diff != "" {
		t.Errorf("continued runs (-want +got):\n%s", diff)
	}
	if err := ws.WriteFile("notes.md", []byte("second\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ws.WriteFile("two.md", []byte("2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return tx
}

func TestAttachOver(t *testing.T) {
	t.Run("a plain Attach refuses while the suspended run's journal is pending", func(t *testing.T) {
		ws, _ := suspended(t)
		if _, err := journal.Attach(ws, ws.StateDir(), "second"); err == nil {
			t.Fatal("Attach began over a pending journal")
		}
	})
	t.Run("Commit keeps both runs' changes and leaves no journal", func(t *testing.T) {
		ws, _ := suspended(t)
		tx := continueRun(t, ws)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		got := snapshotTree(t, ws.Dir())
		for name, want := range map[string]string{"notes.md": "second\n", "one.md": "1\n", "two.md": "2\n"} {
			if !strings.HasSuffix(got[name], " "+want) {
				t.Errorf("after commit %s is %q, want it to hold %q", name, got[name], want)
			}
		}
		if p, _ := journal.Pending(ws.StateDir()); len(p) != 0 {
			t.Errorf("journals left pending: %v", p)
		}
	})
	t.Run("Rollback undoes both runs: the workspace is as before the first", func(t *testing.T) {
		ws, before := suspended(t)
		tx := continueRun(t, ws)
		if _, err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, snapshotTree(t, ws.Dir())); diff != "" {
			t.Errorf("after rollback (-before +now):\n%s", diff)
		}
		if p, _ := journal.Pending(ws.StateDir()); len(p) != 0 {
			t.Errorf("journals left pending: %v", p)
		}
	})
	t.Run("Suspend leaves both pending, and Recover undoes both", func(t *testing.T) {
		ws, before := suspended(t)
		tx := continueRun(t, ws)
		if err := tx.Suspend(); err != nil {
			t.Fatal(err)
		}
		if p, _ := journal.Pending(ws.StateDir()); len(p) != 2 {
			t.Fatalf("pending journals %v, want both", p)
		}
		if _, err := journal.Recover(ws.Dir(), ws.StateDir()); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, snapshotTree(t, ws.Dir())); diff != "" {
			t.Errorf("after recover (-before +now):\n%s", diff)
		}
	})
	t.Run("with nothing pending it is Attach", func(t *testing.T) {
		_, tx, _ := txSetup(t)
		defer tx.Rollback()
		if len(tx.Over()) != 0 {
			t.Errorf("continued %v", tx.Over())
		}
	})
}
