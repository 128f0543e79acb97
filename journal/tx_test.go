package journal_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/workspace"
)

// txSetup opens a workspace holding notes.md and attaches a Tx to it.
func txSetup(t *testing.T) (*workspace.Root, *journal.Tx, map[string]string) {
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
	tx, err := journal.Attach(ws, stateFor(ws), "run-tx")
	if err != nil {
		t.Fatal(err)
	}
	return ws, tx, before
}

// change writes through the workspace as a run's tools do.
func change(t *testing.T, ws *workspace.Root) {
	t.Helper()
	if err := ws.WriteFile("notes.md", []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ws.WriteFile("made/by/run.md", []byte("run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTx(t *testing.T) {
	t.Run("Attach wires the workspace's hooks, so Rollback undoes what the tools wrote", func(t *testing.T) {
		ws, tx, before := txSetup(t)
		defer tx.Rollback()
		change(t, ws)
		rep, err := tx.Rollback()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, snapshotTree(t, ws.Dir())); diff != "" {
			t.Errorf("workspace after rollback (-before +now):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"made", "made/by", "made/by/run.md"}, rep.Removed); diff != "" {
			t.Errorf("removed (-want +got):\n%s", diff)
		}
	})
	t.Run("a deferred Rollback after Commit is a no-op", func(t *testing.T) {
		ws, tx, _ := txSetup(t)
		func() {
			defer tx.Rollback()
			change(t, ws)
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}()
		if got, _ := os.ReadFile(filepath.Join(ws.Dir(), "notes.md")); string(got) != "new\n" {
			t.Errorf("notes.md = %q after commit and a deferred rollback, want the run's change kept", got)
		}
		rep, err := tx.Rollback()
		if err != nil || !rep.Empty() {
			t.Errorf("Rollback after Commit = %v, %v; want an empty report and no error", rep, err)
		}
		if pending, _ := journal.Pending(stateFor(ws)); len(pending) != 0 {
			t.Errorf("pending journals after commit: %v", pending)
		}
	})
	t.Run("Commit after the end is ErrClosed", func(t *testing.T) {
		_, tx, _ := txSetup(t)
		tx.Rollback()
		if err := tx.Commit(); !errors.Is(err, journal.ErrClosed) {
			t.Errorf("Commit after Rollback = %v, want ErrClosed", err)
		}
	})
	t.Run("after the end the workspace refuses changes", func(t *testing.T) {
		ws, tx, _ := txSetup(t)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		err := ws.WriteFile("late.md", []byte("late\n"), 0o644)
		if !errors.Is(err, journal.ErrClosed) {
			t.Errorf("a write after the run's end = %v, want it refused with ErrClosed", err)
		}
		if _, err := os.Stat(filepath.Join(ws.Dir(), "late.md")); err == nil {
			t.Error("late.md was written behind the journal's back")
		}
	})
	t.Run("Suspend leaves the journal pending, and a deferred Rollback leaves it too", func(t *testing.T) {
		ws, tx, before := txSetup(t)
		func() {
			defer tx.Rollback()
			change(t, ws)
			if err := tx.Suspend(); err != nil {
				t.Fatal(err)
			}
		}()
		if got, _ := os.ReadFile(filepath.Join(ws.Dir(), "notes.md")); string(got) != "new\n" {
			t.Errorf("notes.md = %q after suspend, want the paused run's change still there", got)
		}
		pending, err := journal.Pending(stateFor(ws))
		if err != nil || !cmp.Equal(pending, []string{"run-tx"}) {
			t.Fatalf("pending = %v, %v; want the suspended run", pending, err)
		}
		if _, err := journal.Begin(ws.Dir(), stateFor(ws), "run-next"); !errors.Is(err, journal.ErrNeedsRecovery) {
			t.Errorf("a new run in the workspace = %v, want ErrNeedsRecovery", err)
		}
		if _, err := journal.Recover(ws.Dir(), stateFor(ws)); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, snapshotTree(t, ws.Dir())); diff != "" {
			t.Errorf("workspace after recovering the suspended run (-before +now):\n%s", diff)
		}
	})
	t.Run("Snapshot and AfterSnapshot undo what a command wrote", func(t *testing.T) {
		ws, tx, before := txSetup(t)
		if err := tx.Snapshot(context.Background()); err != nil {
			t.Fatal(err)
		}
		// A command writes around the workspace's own hooks.
		if err := os.WriteFile(filepath.Join(ws.Dir(), "cmd.out"), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := tx.AfterSnapshot(); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, snapshotTree(t, ws.Dir())); diff != "" {
			t.Errorf("workspace after rollback (-before +now):\n%s", diff)
		}
	})
}

var _ journal.Workspace = (*workspace.Root)(nil)

// A run as a transaction: the deferred Rollback undoes everything unless
// the run reached Commit.
func ExampleAttach() {
	dir, _ := os.MkdirTemp("", "ws")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("old\n"), 0o644)
	ws, _ := workspace.Open(dir)
	defer ws.Close()
	defer os.RemoveAll(stateFor(ws)) // the state lives outside the workspace

	run := func(ok bool) error {
		tx, err := journal.Attach(ws, stateFor(ws), "run-1")
		if err != nil {
			return err
		}
		defer tx.Rollback()
		ws.WriteFile("notes.md", []byte("new\n"), 0o644)
		if !ok {
			return errors.New("the run failed")
		}
		return tx.Commit()
	}
	fmt.Println(run(false))
	got, _ := os.ReadFile(filepath.Join(dir, "notes.md"))
	fmt.Printf("notes.md: %q\n", got)
	// Output:
	// the run failed
	// notes.md: "old\n"
}

// stateFor is the state folder of a test's workspace: beside it, outside
// it, as statedir.Workspace would put it in the state directory.
func stateFor(ws *workspace.Root) string { return ws.Dir() + ".state" }
