package journal_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/workspace"
)

func TestReattach(t *testing.T) {
	open := func(t *testing.T, dir string) *workspace.Root {
		t.Helper()
		ws, err := workspace.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.Close() })
		return ws
	}
	write := func(t *testing.T, ws *workspace.Root, name, content string) {
		t.Helper()
		if err := ws.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(t *testing.T, dir, name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			return "(missing)"
		}
		return string(b)
	}
	t.Run("a suspended run goes on in its journal, and its rollback undoes both parts", func(t *testing.T) {
		dir, state := t.TempDir(), t.TempDir()
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a0"), 0o644)
		ws := open(t, dir)
		tx, err := journal.Attach(ws, state, "r1")
		if err != nil {
			t.Fatal(err)
		}
		write(t, ws, "a.txt", "a1")
		write(t, ws, "new.txt", "n1")
		if err := tx.Suspend(); err != nil {
			t.Fatal(err)
		}

		ws2 := open(t, dir)
		tx2, err := journal.Reattach(ws2, state, "r1")
		if err != nil {
			t.Fatal(err)
		}
		write(t, ws2, "a.txt", "a2")
		write(t, ws2, "b.txt", "b2")
		if _, err := tx2.Rollback(); err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]string{"a.txt": "a0", "new.txt": "(missing)", "b.txt": "(missing)"} {
			if got := read(t, dir, name); got != want {
				t.Errorf("%s = %q after the rollback, want %q", name, got, want)
			}
		}
	})
	t.Run("a path put back on the run's behalf and adopted is restored by the rollback", func(t *testing.T) {
		dir, state := t.TempDir(), t.TempDir()
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a0"), 0o644)
		ws := open(t, dir)
		tx, _ := journal.Attach(ws, state, "r1")
		write(t, ws, "a.txt", "a1")
		tx.Suspend()
		// Something on the run's behalf (a tool call undone on resume)
		// sets a.txt to a state the journal's after record does not know.
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte("between"), 0o644)
		tx2, err := journal.Reattach(open(t, dir), state, "r1")
		if err != nil {
			t.Fatal(err)
		}
		tx2.Adopt([]string{"a.txt"})
		rep, err := tx2.Rollback()
		if err != nil || len(rep.Conflicts) != 0 || read(t, dir, "a.txt") != "a0" {
			t.Errorf("rollback %+v (%v), a.txt %q; want it restored, no conflict", rep, err, read(t, dir, "a.txt"))
		}
	})
	t.Run("a run that stopped while a command ran: what the command made is the run's", func(t *testing.T) {
		dir, state := t.TempDir(), t.TempDir()
		ws := open(t, dir)
		tx, err := journal.Attach(ws, state, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Snapshot(context.Background()); err != nil {
			t.Fatal(err)
		}
		// The command writes behind the workspace's hooks; the run stops
		// before the command returned.
		os.WriteFile(filepath.Join(dir, "made.txt"), []byte("by the command"), 0o644)
		tx.Suspend()
		tx2, err := journal.Reattach(open(t, dir), state, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx2.Rollback(); err != nil {
			t.Fatal(err)
		}
		if got := read(t, dir, "made.txt"); got != "(missing)" {
			t.Errorf("made.txt = %q after the rollback, want it removed", got)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		dir, state := t.TempDir(), t.TempDir()
		ws := open(t, dir)
		if _, err := journal.Reattach(ws, state, "r1"); !errors.Is(err, journal.ErrNotPending) {
			t.Errorf("no journal: %v, want ErrNotPending", err)
		}
		tx, _ := journal.Attach(ws, state, "r1")
		if _, err := journal.Reattach(open(t, dir), state, "r1"); !errors.Is(err, journal.ErrBusy) {
			t.Errorf("live journal: %v, want ErrBusy", err)
		}
		tx.Suspend()
		dead(t, state, "r0")
		if _, err := journal.Reattach(open(t, dir), state, "r1"); !errors.Is(err, journal.ErrNeedsRecovery) {
			t.Errorf("another run's journal pending: %v, want ErrNeedsRecovery", err)
		}
	})
}

// dead leaves a pending journal of run in state, as a run that died
// there before its first record would (a folder without a log).
func dead(t *testing.T, state, run string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(state, "journal", run), 0o700); err != nil {
		t.Fatal(err)
	}
}
