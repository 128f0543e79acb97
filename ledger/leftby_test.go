package ledger

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
)

// TestAStepLeftByADeadProcess: River hands out a job again (its rescuer,
// once the step's lease ran out) when the process that took it died. The
// step's owner continues it; another owner leaves it alone while its lease
// runs (River's snooze), then records it interrupted and retries its task
// from the start.
func TestAStepLeftByADeadProcess(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2025, 10, 21, 22, 0, 0, 0, time.UTC)
	wall := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	setup := func(t *testing.T, owner string) (*Ledger, *Worker, Step) {
		t.Helper()
		dir := t.TempDir()
		l, err := Open(ctx, filepath.Join(dir, "l.db"), Config{Owner: owner, Clock: wall})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close(ctx) }) //nolint:errcheck // test cleanup
		n, err := l.StartNight(ctx, "n", t0, t0.Add(8*time.Hour), t0)
		if err != nil {
			t.Fatal(err)
		}
		task, err := l.AddTask(ctx, NewTask{Title: "half done"}, t0)
		if err != nil {
			t.Fatal(err)
		}
		// Owner "a" claimed it (job 42), and its process died.
		d, err := Open(ctx, filepath.Join(dir, "l.db"), Config{Owner: "a", Clock: wall})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close(ctx) //nolint:errcheck // only its owner name and lease are used
		var s Step
		err = l.b.inTx(ctx, func(q querier, ops jobOps) error {
			tx, err := l.openTx(ctx, q, ops, n.ID)
			if err != nil {
				return err
			}
			s, err = d.claim(ctx, tx, Claim{Role: Builder, Worker: "b1", Task: task.ID, At: t0}, 42)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		w := &Worker{l: l, night: n.ID, running: map[int64]bool{},
			cfg: WorkConfig{Clock: clock.NewFake(t0), Recover: func(context.Context, Step) (Recovery, error) { return Recovery{Keep: true}, nil }}}
		return l, w, s
	}
	left := func(t *testing.T, l *Ledger, w *Worker) (cont *Step, snooze time.Duration, recorded bool) {
		t.Helper()
		err := l.b.inTx(ctx, func(q querier, ops jobOps) error {
			tx, err := l.openTx(ctx, q, ops, w.night)
			if err != nil {
				return err
			}
			cont, snooze, recorded, err = w.leftBy(ctx, tx, jobRef{id: 42, args: StepArgs{Night: w.night}, attempt: 2})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return cont, snooze, recorded
	}

	t.Run("another owner leaves it alone while its lease runs", func(t *testing.T) {
		l, w, s := setup(t, "b")
		_, snooze, _ := left(t, l, w)
		if got, _ := l.Step(ctx, s.ID); got.State != Running || snooze <= 0 || snooze > DefaultLease {
			t.Errorf("step %s, snooze %s; want it left running, the job snoozed until the lease runs out", got.State, snooze)
		}
	})
	t.Run("once the lease ran out another owner records it interrupted and retries its task from the start", func(t *testing.T) {
		l, w, s := setup(t, "b")
		wall.Advance(DefaultLease + time.Minute)
		cont, snooze, _ := left(t, l, w)
		got, _ := l.Step(ctx, s.ID)
		task, _ := l.Task(ctx, s.Task)
		if cont != nil || snooze != 0 || got.State != Interrupted || got.Pending || task.State != Queued || !task.Front {
			t.Errorf("continued %v, snooze %s; step %s pending %v; task %s front %v", cont, snooze, got.State, got.Pending, task.State, task.Front)
		}
	})
	t.Run("its own owner continues it at once", func(t *testing.T) {
		l, w, s := setup(t, "a")
		cont, snooze, _ := left(t, l, w)
		got, _ := l.Step(ctx, s.ID)
		if cont == nil || cont.ID != s.ID || snooze != 0 || !got.Pending {
			t.Errorf("continued %+v, snooze %s, pending %v; want the step continued by its owner", cont, snooze, got.Pending)
		}
	})
	t.Run("a step recorded already means the job's work is done", func(t *testing.T) {
		l, w, s := setup(t, "b")
		if _, err := l.b.pool().exec(ctx, "UPDATE ns_steps SET state = ? WHERE id = ?", Finished, s.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, recorded := left(t, l, w); !recorded {
			t.Error("the job's recorded step was not seen")
		}
	})
}
