package ledger_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
)

// TestDropTask (issue 30): a person gives a task up. A queued task, or a
// parked one (its action withdrawn, so that no night waits for its
// answer), becomes dropped, apart from failed: no failure is recorded,
// and it is no longer in the backlog nor among the active tasks. A task
// an attempt holds, or one settled already, is refused, naming its
// state; on every store.
func TestDropTask(t *testing.T) {
	for name, dsn := range stores(t) {
		t.Run(name, func(t *testing.T) {
			l := open(t, dsn(t))
			n := night(t, l, "drops")
			queued := addTask(t, l, "an atlas", score(9))
			parked := park(t, l, n, t0.Add(12*time.Hour))
			claimed := addTask(t, l, "a clock", score(8))
			interrupted(t, l, night(t, l, "drops, later"), claimed) // its attempt waits to be continued: still claimed
			done := addTask(t, l, "a chart", score(1))
			if err := l.SetTaskState(ctx(), done.ID, ledger.Done, t0); err != nil {
				t.Fatal(err)
			}

			at := t0.Add(9 * time.Hour)
			d, err := l.DropTask(ctx(), queued.ID, 0, "  failed on every model  ", at)
			if err != nil {
				t.Fatal(err)
			}
			if d.Task != queued.ID || d.Was != ledger.Queued || d.Reason != "failed on every model" || !d.At.Equal(at) || d.Night != 0 {
				t.Errorf("drop %+v", d)
			}
			if _, err := l.DropTask(ctx(), parked.ID, n.ID, "", at); err != nil {
				t.Fatal(err)
			}
			for _, id := range []int64{queued.ID, parked.ID} {
				if got, _ := l.Task(ctx(), id); got.State != ledger.Dropped {
					t.Errorf("task %d is %s after the drop, want dropped", id, got.State)
				}
			}
			ps, _ := l.ParkedActions(ctx())
			if len(ps) != 1 || ps[0].Decision != ledger.Withdrawn || !ps[0].DecidedAt.Equal(at) {
				t.Errorf("the dropped task's parked action: %+v; want it withdrawn", ps)
			}
			active, _ := l.ActiveTasks(ctx())
			backlog, _ := l.Backlog(ctx())
			for _, ts := range [][]ledger.Task{active, backlog} {
				if slices.ContainsFunc(ts, func(x ledger.Task) bool { return x.ID == queued.ID || x.ID == parked.ID }) {
					t.Errorf("a dropped task is still listed: %v", titles(ts))
				}
			}
			if fs, _ := l.TaskFailures(ctx(), queued.ID); len(fs) != 0 {
				t.Errorf("a drop recorded failures: %+v", fs)
			}

			for _, tt := range []struct {
				task  ledger.Task
				state ledger.TaskState
			}{{claimed, ledger.Claimed}, {done, ledger.Done}, {queued, ledger.Dropped}} {
				_, err := l.DropTask(ctx(), tt.task.ID, 0, "", at)
				var nd *ledger.NotDroppableError
				if !errors.Is(err, ledger.ErrNotDroppable) || !errors.As(err, &nd) || nd.State != tt.state || nd.Task != tt.task.ID {
					t.Errorf("dropping the %s task: %v; want it refused as %s", tt.state, err, tt.state)
				}
			}
			if _, err := l.DropTask(ctx(), 999, 0, "", at); !errors.Is(err, ledger.ErrNotFound) {
				t.Errorf("dropping no task: %v, want ErrNotFound", err)
			}

			drops, err := l.Drops(ctx())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range drops {
				got = append(got, fmt.Sprintf("%d %s night=%d %q", d.Task, d.Was, d.Night, d.Reason))
			}
			want := []string{fmt.Sprintf("%d queued night=0 %q", queued.ID, "failed on every model"), fmt.Sprintf("%d parked night=%d %q", parked.ID, n.ID, "")}
			if !slices.Equal(got, want) {
				t.Errorf("drops %q, want %q", got, want)
			}
		})
	}
}

// TestTheReportsReads: the failures recorded by hand, between nights (no
// night open) and during one, and the role's finished steps of every night, which the
// morning report reads; on every store.
func TestTheReportsReads(t *testing.T) {
	for name, dsn := range stores(t) {
		t.Run(name, func(t *testing.T) {
			l := open(t, dsn(t))
			n := night(t, l, "reads")
			a, b := addTask(t, l, "a", score(2)), addTask(t, l, "b", score(1))
			play(t, l, n,
				stepOf(ledger.Claim{Role: ledger.Builder, Worker: "b1", Task: a.ID, At: t0}, ledger.Result{State: ledger.Finished, Outcome: "done", TaskState: ledger.Done, At: t0.Add(time.Hour)}),
				stepOf(ledger.Claim{Role: ledger.Builder, Worker: "b1", Task: b.ID, At: t0.Add(time.Hour)}, ledger.Result{State: ledger.StepFailed, Outcome: "unverified", At: t0.Add(2 * time.Hour)}))
			between, err := l.FailTask(ctx(), b.ID, 0, "wrong all along", t0.Add(10*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			during, err := l.FailTask(ctx(), b.ID, n.ID, "during the night", t0.Add(3*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			fs, err := l.ManualFailures(ctx())
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) != 2 || fs[0].ID != between.ID || fs[0].Night != 0 || fs[1].ID != during.ID || fs[1].Night != n.ID ||
				!fs[0].Manual || fs[0].Reason != "wrong all along" {
				t.Errorf("failures by hand: %+v; want the one between nights (night 0), then the one during the night", fs)
			}
			done, err := l.FinishedSteps(ctx(), ledger.Builder)
			if err != nil {
				t.Fatal(err)
			}
			if len(done) != 1 || done[0].Task != a.ID || !done[0].EndedAt.Equal(t0.Add(time.Hour)) {
				t.Errorf("finished builder steps: %+v; want task a's", done)
			}
		})
	}
}
