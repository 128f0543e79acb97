package ledger_test

import (
	"context"
	"errors"
	"github.com/nightshift-dev/nightshift/ledger/ledgertest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/ledger"
)

var t0 = time.Date(2025, 10, 21, 22, 0, 0, 0, time.UTC)

// stores lists the stores the conformance suite runs against: SQLite
// always, PostgreSQL when NIGHTSHIFT_TEST_PG names a server.
func stores(t *testing.T) map[string]func(t *testing.T) string {
	m := map[string]func(t *testing.T) string{
		"sqlite": func(t *testing.T) string { return filepath.Join(t.TempDir(), "ledger.db") },
	}
	if pg := os.Getenv("NIGHTSHIFT_TEST_PG"); pg != "" {
		m["postgres"] = func(t *testing.T) string { return ledgertest.FreshPostgres(t, pg) }
	}
	return m
}

func open(t *testing.T, dsn string) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Open(context.Background(), dsn, ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(context.Background()) }) //nolint:errcheck // test cleanup
	return l
}

func score(v float64) *float64 { return &v }

// TestConformance runs every store through the same behaviour.
func TestConformance(t *testing.T) {
	for name, dsn := range stores(t) {
		t.Run(name, func(t *testing.T) {
			for _, c := range conformance {
				t.Run(c.name, func(t *testing.T) { c.fn(t, open(t, dsn(t))) })
			}
		})
	}
}

var conformance = []struct {
	name string
	fn   func(t *testing.T, l *ledger.Ledger)
}{
	{"the backlog is ordered front first, then best score, then oldest", testBacklogOrder},
	{"a step is recorded in the transaction that completes its job", testStepRecorded},
	{"a role cannot claim more steps than its ceiling", testCeiling},
	{"a task claimed once cannot be claimed again", testTaken},
	{"the proposer's ideas and the judge's scores land in the backlog", testProposeAndJudge},
	{"a parked task comes back at the front when approved", testApprove},
	{"a denied parked task fails with the reason recorded", testDeny},
	{"a parked task past its deadline is settled by the rule", testExpire},
	{"an interrupted step is given back and its task goes first", testInterrupt},
	{"a failure recorded by hand is charged to the task", testFailByHand},
	{"the same night is joined, and its end is written once", testNightOnce},
}

func ctx() context.Context { return context.Background() }

func night(t *testing.T, l *ledger.Ledger) ledger.Night {
	t.Helper()
	n, err := l.StartNight(ctx(), "2025-10-21", t0, t0.Add(8*time.Hour), t0)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func addTask(t *testing.T, l *ledger.Ledger, title string, s *float64) ledger.Task {
	t.Helper()
	task, err := l.AddTask(ctx(), ledger.NewTask{Title: title, Score: s}, t0)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func titles(ts []ledger.Task) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Title)
	}
	return out
}

func testBacklogOrder(t *testing.T, l *ledger.Ledger) {
	addTask(t, l, "unscored", nil)
	addTask(t, l, "low", score(2))
	addTask(t, l, "high", score(9))
	addTask(t, l, "high too", score(9))
	got, err := l.Backlog(ctx())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"high", "high too", "low", "unscored"}, titles(got)); diff != "" {
		t.Errorf("backlog order (-want +got):\n%s", diff)
	}
}

func testStepRecorded(t *testing.T, l *ledger.Ledger) {
	n := night(t, l)
	task := addTask(t, l, "booklet", score(5))
	end := t0.Add(10 * time.Minute)
	s, err := l.RunStep(ctx(), ledger.Claim{Night: n.ID, Role: ledger.Builder, Worker: "b1", Task: task.ID, Ceiling: 14, At: t0},
		func(_ context.Context, s ledger.Step) ledger.Result {
			if s.Task != task.ID || s.State != ledger.Running {
				t.Errorf("step handed to the worker = %+v", s)
			}
			return ledger.Result{State: ledger.StepFailed, Outcome: "unverified", Reason: "only 3 of 5", Checks: []string{"five-steps"},
				Tokens: 120, At: end, Failures: []ledger.Failure{{Scope: ledger.TaskScope, Rule: "failed-step", Reason: "unverified"}}}
		})
	if err != nil {
		t.Fatal(err)
	}
	steps, err := l.Steps(ctx(), n.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []ledger.Step{{ID: s.ID, Night: n.ID, Role: ledger.Builder, Worker: "b1", Task: task.ID, Job: s.Job, Owner: l.Owner(),
		State: ledger.StepFailed, Outcome: "unverified", Reason: "only 3 of 5", Checks: []string{"five-steps"}, Tokens: 120,
		StartedAt: t0, EndedAt: end}}
	if diff := cmp.Diff(want, steps); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	fs, err := l.Failures(ctx(), n.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantF := []ledger.Failure{{ID: fs[0].ID, Night: n.ID, Step: s.ID, Task: task.ID, Role: ledger.Builder, Worker: "b1",
		Scope: ledger.TaskScope, Rule: "failed-step", Reason: "unverified", At: end}}
	if diff := cmp.Diff(wantF, fs); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if got, _ := l.Task(ctx(), task.ID); got.State != ledger.Queued {
		t.Errorf("task after a failed step is %s, want back in the queue", got.State)
	}
	if js, err := l.JobState(ctx(), s.Job); err != nil || js != "completed" {
		t.Errorf("river job state = %q, %v; want completed", js, err)
	}
}

func ok(_ context.Context, _ ledger.Step) ledger.Result {
	return ledger.Result{State: ledger.Finished, Outcome: "ok", At: t0}
}

func testCeiling(t *testing.T, l *ledger.Ledger) {
	n := night(t, l)
	claim := ledger.Claim{Night: n.ID, Role: ledger.Judge, Worker: "j", Ceiling: 2, At: t0}
	for i := range 2 {
		if _, err := l.RunStep(ctx(), claim, ok); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
	}
	if _, err := l.RunStep(ctx(), claim, ok); !errors.Is(err, ledger.ErrCeiling) {
		t.Errorf("third step under a ceiling of 2: err = %v, want ErrCeiling", err)
	}
}

func testTaken(t *testing.T, l *ledger.Ledger) {
	n := night(t, l)
	task := addTask(t, l, "once", score(1))
	done := func(_ context.Context, _ ledger.Step) ledger.Result {
		return ledger.Result{State: ledger.Finished, Outcome: "done", TaskState: ledger.Done, At: t0}
	}
	claim := ledger.Claim{Night: n.ID, Role: ledger.Builder, Worker: "b", Task: task.ID, At: t0}
	if _, err := l.RunStep(ctx(), claim, done); err != nil {
		t.Fatal(err)
	}
	if _, err := l.RunStep(ctx(), claim, done); !errors.Is(err, ledger.ErrTaken) {
		t.Errorf("claiming a done task: err = %v, want ErrTaken", err)
	}
	n2, _ := l.Night(ctx(), n.ID)
	if n2.Reserved[ledger.Builder] != 1 {
		t.Errorf("a refused claim kept its reservation: builder reserved %d, want 1", n2.Reserved[ledger.Builder])
	}
}

func testProposeAndJudge(t *testing.T, l *ledger.Ledger) {
	n := night(t, l)
	_, err := l.RunStep(ctx(), ledger.Claim{Night: n.ID, Role: ledger.Proposer, Worker: "p", At: t0},
		func(context.Context, ledger.Step) ledger.Result {
			return ledger.Result{At: t0, NewTasks: []ledger.NewTask{{Title: "a chart"}, {Title: "a web page"}}}
		})
	if err != nil {
		t.Fatal(err)
	}
	bl, _ := l.Backlog(ctx())
	if len(bl) != 2 || bl[0].Source != "proposer" || bl[0].Scored {
		t.Fatalf("backlog after proposing = %+v", bl)
	}
	_, err = l.RunStep(ctx(), ledger.Claim{Night: n.ID, Role: ledger.Judge, Worker: "j", At: t0},
		func(context.Context, ledger.Step) ledger.Result {
			return ledger.Result{At: t0, Scores: map[int64]float64{bl[0].ID: 3, bl[1].ID: 8}}
		})
	if err != nil {
		t.Fatal(err)
	}
	bl, _ = l.Backlog(ctx())
	if diff := cmp.Diff([]string{"a web page", "a chart"}, titles(bl)); diff != "" {
		t.Errorf("backlog after judging (-want +got):\n%s", diff)
	}
}

func park(t *testing.T, l *ledger.Ledger, n ledger.Night, deadline time.Time) ledger.Task {
	t.Helper()
	task := addTask(t, l, "fetch the book", score(4))
	_, err := l.RunStep(ctx(), ledger.Claim{Night: n.ID, Role: ledger.Builder, Worker: "b", Task: task.ID, At: t0},
		func(context.Context, ledger.Step) ledger.Result {
			return ledger.Result{State: ledger.StepParked, Outcome: "parked", At: t0,
				Park: &ledger.ParkedAction{Action: `fetch {"url":"https://example.org/book"}`, Reason: "danger tool", Deadline: deadline}}
		})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := l.Task(ctx(), task.ID); got.State != ledger.Parked {
		t.Fatalf("task state after parking = %s", got.State)
	}
	return task
}

func testApprove(t *testing.T, l *ledger.Ledger) {
	n := night(t, l)
	addTask(t, l, "best", score(9))
	task := park(t, l, n, t0.Add(12*time.Hour))
	p, err := l.Decide(ctx(), task.ID, ledger.Approved, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	bl, _ := l.Backlog(ctx())
	if len(bl) == 0 || bl[0].ID != task.ID {
		t.Errorf("backlog after approval = %v, want the approved task first", titles(bl))
	}
	ap, _ := l.Approvals(ctx(), task.ID)
	if len(ap) != 1 || ap[0].ID != p.ID || ap[0].Action != p.Action {
		t.Errorf("approvals = %+v, want the parked action", ap)
	}
	if _, err := l.Decide(ctx(), task.ID, ledger.Denied, t0); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("answering twice: err = %v, want ErrNotFound", err)
	}
}

func testDeny(t *testing.T, l *ledger.Ledger) {
	n := night(t, l)
	task := park(t, l, n, t0.Add(12*time.Hour))
	if _, err := l.Decide(ctx(), task.ID, ledger.Denied, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, _ := l.Task(ctx(), task.ID)
	fs, _ := l.TaskFailures(ctx(), task.ID)
	if got.State != ledger.Failed || len(fs) != 1 || fs[0].Rule != "denied" || !fs[0].Manual {
		t.Errorf("after denial: task %s, failures %+v", got.State, fs)
	}
}

func testExpire(t *testing.T, l *ledger.Ledger) {
	for _, requeue := range []bool{false, true} {
		n := night(t, l)
		task := park(t, l, n, t0.Add(time.Hour))
		if ps, _ := l.Expire(ctx(), n.ID, t0.Add(30*time.Minute), requeue); len(ps) != 0 {
			t.Errorf("expired before the deadline: %+v", ps)
		}
		ps, err := l.Expire(ctx(), n.ID, t0.Add(time.Hour), requeue)
		if err != nil || len(ps) != 1 || ps[0].Decision != ledger.Expired {
			t.Fatalf("expire at the deadline = %+v, %v", ps, err)
		}
		want := ledger.Failed
		if requeue {
			want = ledger.Queued
		}
		if got, _ := l.Task(ctx(), task.ID); got.State != want {
			t.Errorf("requeue=%v: task state %s, want %s", requeue, got.State, want)
		}
	}
}

func testInterrupt(t *testing.T, l *ledger.Ledger) {
	n := night(t, l)
	task := addTask(t, l, "half done", score(3))
	addTask(t, l, "better", score(9))
	// The step's process "dies": its worker never records a result.
	c, cancel := context.WithCancel(ctx())
	_, err := l.RunStep(c, ledger.Claim{Night: n.ID, Role: ledger.Builder, Worker: "b", Task: task.ID, Ceiling: 14, At: t0},
		func(context.Context, ledger.Step) ledger.Result { cancel(); panic("crash") })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("RunStep of a crashed step: %v", err)
	}
	running, err := l.Running(ctx(), n.ID)
	if err != nil || len(running) != 1 {
		t.Fatalf("running steps = %+v, %v", running, err)
	}
	if err := l.Interrupt(ctx(), running[0], "process died", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	bl, _ := l.Backlog(ctx())
	nn, _ := l.Night(ctx(), n.ID)
	steps, _ := l.Steps(ctx(), n.ID)
	if len(bl) != 2 || bl[0].ID != task.ID || nn.Reserved[ledger.Builder] != 0 || steps[0].State != ledger.Interrupted {
		t.Errorf("after interrupt: backlog %v, reserved %d, step %s", titles(bl), nn.Reserved[ledger.Builder], steps[0].State)
	}
}

func testFailByHand(t *testing.T, l *ledger.Ledger) {
	n := night(t, l)
	task := addTask(t, l, "stuck", nil)
	f, err := l.FailTask(ctx(), task.ID, n.ID, "returned nothing on the 17th", t0)
	if err != nil {
		t.Fatal(err)
	}
	fs, _ := l.TaskFailures(ctx(), task.ID)
	if diff := cmp.Diff([]ledger.Failure{f}, fs); diff != "" || f.Scope != ledger.TaskScope {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if _, err := l.FailTask(ctx(), task.ID, 0, " ", t0); err == nil {
		t.Error("a failure without a reason was accepted")
	}
}

func testNightOnce(t *testing.T, l *ledger.Ledger) {
	a := night(t, l)
	b := night(t, l)
	if a.ID != b.ID {
		t.Fatalf("two starts made two nights: %d, %d", a.ID, b.ID)
	}
	if _, err := l.EndNight(ctx(), a.ID, ledger.CeilingsReached, "builder reached 14 steps", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	n, err := l.EndNight(ctx(), a.ID, ledger.WindowClosed, "late", t0.Add(2*time.Hour))
	if err != nil || n.End != ledger.CeilingsReached || !n.EndedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("second end overwrote the first: %+v, %v", n, err)
	}
}
