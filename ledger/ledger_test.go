package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/ledger/ledgertest"
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

func openAs(t *testing.T, dsn string, cfg ledger.Config) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Open(context.Background(), dsn, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(context.Background()) }) //nolint:errcheck // test cleanup
	return l
}

func open(t *testing.T, dsn string) *ledger.Ledger {
	return openAs(t, dsn, ledger.Config{Owner: "box"})
}

func score(v float64) *float64 { return &v }

// TestConformance runs every store through the same behaviour.
func TestConformance(t *testing.T) {
	for name, dsn := range stores(t) {
		t.Run(name, func(t *testing.T) {
			for _, c := range conformance {
				t.Run(c.name, func(t *testing.T) { c.fn(t, dsn(t)) })
			}
		})
	}
}

var conformance = []struct {
	name string
	fn   func(t *testing.T, dsn string)
}{
	{"the backlog is ordered front first, then best score, then oldest", testBacklogOrder},
	{"a step is recorded in the transaction that completes its job, and its chain goes on", testStepRecorded},
	{"the proposer's ideas and the judge's scores land in the backlog", testProposeAndJudge},
	{"tokens are totalled per night and per worker in the ledger", testTokens},
	{"a step's cost and cache tokens are recorded, NULL when unknown, and totalled per night", testSpend},
	{"a parked task comes back at the front when approved", testApprove},
	{"a denied parked task fails with the reason recorded", testDeny},
	{"a parked task past its deadline is settled by the rule", testExpire},
	{"an interrupted step keeps its task for its continuation, which only its owner runs", testInterruptAndContinue},
	{"another owner takes over a pending step once its lease ran out", testTakeOver},
	{"a failure recorded by hand is charged to the task", testFailByHand},
	{"the same night is joined, and its end is written once", testNightOnce},
	{"a system-stopped night is resumed, its stop kept", testResume},
	{"a note is written once per night", testNoteOnce},
	{"no credential's value is stored: steps, failures, notes, task notes, parked actions, tasks, nights", testRedactedAtWrite},
}

func ctx() context.Context { return context.Background() }

func night(t *testing.T, l *ledger.Ledger, name string) ledger.Night {
	t.Helper()
	n, err := l.StartNight(ctx(), name, t0, t0.Add(8*time.Hour), t0)
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

// script is a Handler that plays its plans in order, one per job, then
// ends the night out of work.
type script struct {
	mu    sync.Mutex
	plans []func(tx *ledger.Tx) ledger.Plan
	seen  []*ledger.Step // tx.Continue of each Decide
}

func (s *script) Decide(_ context.Context, tx *ledger.Tx) (ledger.Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, tx.Continue)
	if len(s.plans) == 0 {
		return ledger.Plan{End: &ledger.End{Kind: ledger.OutOfWork, Reason: "the script is played", At: t0}}, nil
	}
	p := s.plans[0]
	s.plans = s.plans[1:]
	return p(tx), nil
}

// stepOf is a plan that claims c and records res.
func stepOf(c ledger.Claim, res ledger.Result) func(*ledger.Tx) ledger.Plan {
	return func(*ledger.Tx) ledger.Plan {
		return ledger.Plan{Claim: &c, Work: func(context.Context, ledger.Step) ledger.SettleFunc {
			return func(context.Context, *ledger.Tx) (ledger.Result, error) { return res, nil }
		}}
	}
}

// play works night n with the plans until the night ends.
func play(t *testing.T, l *ledger.Ledger, n ledger.Night, plans ...func(*ledger.Tx) ledger.Plan) *script {
	t.Helper()
	s := &script{plans: plans}
	playWith(t, l, n, s)
	return s
}

// handlerFunc decides every job with one function.
type handlerFunc func(tx *ledger.Tx) ledger.Plan

func (f handlerFunc) Decide(_ context.Context, tx *ledger.Tx) (ledger.Plan, error) { return f(tx), nil }

// playWith works night n with h until the night ends.
func playWith(t *testing.T, l *ledger.Ledger, n ledger.Night, h ledger.Handler) {
	t.Helper()
	w, err := l.Work(ctx(), ledger.WorkConfig{Night: n.ID, Handler: h})
	if err != nil {
		t.Fatal(err)
	}
	<-w.Ended()
	if err := w.Stop(ctx()); err != nil {
		t.Fatal(err)
	}
}

func testBacklogOrder(t *testing.T, dsn string) {
	l := open(t, dsn)
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

func testStepRecorded(t *testing.T, dsn string) {
	l := open(t, dsn)
	n := night(t, l, "recorded")
	task := addTask(t, l, "booklet", score(5))
	end := t0.Add(10 * time.Minute)
	var handed ledger.Step
	claim := ledger.Claim{Role: ledger.Builder, Worker: "b1", Task: task.ID, Ceiling: 14, At: t0}
	play(t, l, n, func(*ledger.Tx) ledger.Plan {
		return ledger.Plan{Claim: &claim, Work: func(_ context.Context, s ledger.Step) ledger.SettleFunc {
			handed = s
			return func(context.Context, *ledger.Tx) (ledger.Result, error) {
				return ledger.Result{State: ledger.StepFailed, Outcome: "unverified", Reason: "only 3 of 5", Checks: []string{"five-steps"},
					Tokens: 120, At: end, Failures: []ledger.Failure{{Scope: ledger.TaskScope, Rule: "failed-step", Reason: "unverified"}}}, nil
			}
		}}
	})
	if handed.Task != task.ID || handed.State != ledger.Running || handed.Job == 0 {
		t.Errorf("step handed to the work = %+v", handed)
	}
	steps, err := l.Steps(ctx(), n.ID)
	if err != nil || len(steps) != 1 {
		t.Fatalf("steps %+v, %v", steps, err)
	}
	s := steps[0]
	want := ledger.Step{ID: s.ID, Night: n.ID, Role: ledger.Builder, Worker: "b1", Task: task.ID, Job: s.Job, Owner: l.Owner(),
		State: ledger.StepFailed, Outcome: "unverified", Reason: "only 3 of 5", Checks: []string{"five-steps"}, Tokens: 120,
		StartedAt: t0, EndedAt: end, LeaseUntil: s.LeaseUntil}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	fs, err := l.Failures(ctx(), n.ID)
	if err != nil || len(fs) != 1 {
		t.Fatalf("failures %+v, %v", fs, err)
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
	nn, _ := l.Night(ctx(), n.ID)
	if nn.End != ledger.OutOfWork || nn.Reserved[ledger.Builder] != 1 {
		t.Errorf("night %s with %d builder steps reserved; the chain's next job must have ended it out of work after 1", nn.End, nn.Reserved[ledger.Builder])
	}
}

func testProposeAndJudge(t *testing.T, dsn string) {
	l := open(t, dsn)
	n := night(t, l, "ideas")
	var bl []ledger.Task
	play(t, l, n,
		stepOf(ledger.Claim{Role: ledger.Proposer, Worker: "p", At: t0}, ledger.Result{At: t0, NewTasks: []ledger.NewTask{{Title: "a chart"}, {Title: "a web page"}}}),
		func(tx *ledger.Tx) ledger.Plan {
			bl, _ = tx.ActiveTasks(ctx())
			c := ledger.Claim{Role: ledger.Judge, Worker: "j", At: t0}
			return stepOf(c, ledger.Result{At: t0, Scores: map[int64]float64{bl[0].ID: 3, bl[1].ID: 8}})(tx)
		})
	if len(bl) != 2 || bl[0].Source != "proposer" || bl[0].Scored {
		t.Fatalf("backlog the judge saw = %+v", bl)
	}
	got, _ := l.Backlog(ctx())
	if diff := cmp.Diff([]string{"a web page", "a chart"}, titles(got)); diff != "" {
		t.Errorf("backlog after judging (-want +got):\n%s", diff)
	}
}

func testTokens(t *testing.T, dsn string) {
	l := open(t, dsn)
	n := night(t, l, "tokens")
	var seen ledger.Tokens
	play(t, l, n,
		stepOf(ledger.Claim{Role: ledger.Proposer, Worker: "p", At: t0}, ledger.Result{At: t0, Tokens: 30}),
		stepOf(ledger.Claim{Role: ledger.Judge, Worker: "j", At: t0}, ledger.Result{At: t0, Tokens: 20}),
		stepOf(ledger.Claim{Role: ledger.Proposer, Worker: "p", At: t0}, ledger.Result{At: t0, Tokens: 5}),
		func(tx *ledger.Tx) ledger.Plan {
			seen, _ = tx.Tokens(ctx())
			return ledger.Plan{End: &ledger.End{Kind: ledger.CeilingsReached, Reason: "budget", At: t0}}
		})
	want := ledger.Tokens{Total: 55, ByWorker: map[ledger.WorkerKey]int64{{Role: ledger.Proposer, Worker: "p"}: 35, {Role: ledger.Judge, Worker: "j"}: 20}}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("tokens in the transaction (-want +got):\n%s", diff)
	}
	if got, _ := l.NightTokens(ctx(), n.ID); !cmp.Equal(want, got) {
		t.Errorf("NightTokens = %+v", got)
	}
}

func park(t *testing.T, l *ledger.Ledger, n ledger.Night, deadline time.Time) ledger.Task {
	t.Helper()
	task := addTask(t, l, "fetch the book", score(4))
	play(t, l, n, stepOf(ledger.Claim{Role: ledger.Builder, Worker: "b", Task: task.ID, At: t0},
		ledger.Result{State: ledger.StepParked, Outcome: "parked", At: t0,
			Park: &ledger.ParkedAction{Action: `fetch {"url":"https://example.org/book"}`, Reason: "danger tool", Deadline: deadline}}))
	if got, _ := l.Task(ctx(), task.ID); got.State != ledger.Parked {
		t.Fatalf("task state after parking = %s", got.State)
	}
	return task
}

func testApprove(t *testing.T, dsn string) {
	l := open(t, dsn)
	n := night(t, l, "approve")
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

func testDeny(t *testing.T, dsn string) {
	l := open(t, dsn)
	n := night(t, l, "deny")
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

func testExpire(t *testing.T, dsn string) {
	l := open(t, dsn)
	for i, requeue := range []bool{false, true} {
		n := night(t, l, []string{"expire-fail", "expire-requeue"}[i])
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

// interrupted plays a builder step on task that runs until its worker is
// interrupted, and returns the interrupted step.
func interrupted(t *testing.T, l *ledger.Ledger, n ledger.Night, task ledger.Task) ledger.Step {
	t.Helper()
	began := make(chan struct{})
	claim := ledger.Claim{Role: ledger.Builder, Worker: "b", Task: task.ID, Ceiling: 14, At: t0}
	s := &script{plans: []func(*ledger.Tx) ledger.Plan{func(*ledger.Tx) ledger.Plan {
		return ledger.Plan{Claim: &claim, Work: func(ctx context.Context, _ ledger.Step) ledger.SettleFunc {
			close(began)
			<-ctx.Done() // a long attempt, until Ctrl-C
			return func(context.Context, *ledger.Tx) (ledger.Result, error) {
				return ledger.Result{State: ledger.Interrupted, Outcome: "interrupted", Pending: true, Tokens: 7, At: t0.Add(time.Minute)}, nil
			}
		}}
	}}}
	w, err := l.Work(ctx(), ledger.WorkConfig{Night: n.ID, Handler: s})
	if err != nil {
		t.Fatal(err)
	}
	<-began
	if err := w.Interrupt(ctx()); err != nil {
		t.Fatal(err)
	}
	steps, _ := l.Steps(ctx(), n.ID)
	if len(steps) != 1 {
		t.Fatalf("steps after the interrupt: %+v", steps)
	}
	return steps[0]
}

func testInterruptAndContinue(t *testing.T, dsn string) {
	l := open(t, dsn)
	n := night(t, l, "interrupt")
	task := addTask(t, l, "half done", score(3))
	addTask(t, l, "better", score(9))
	s := interrupted(t, l, n, task)
	nn, _ := l.Night(ctx(), n.ID)
	got, _ := l.Task(ctx(), task.ID)
	if s.State != ledger.Interrupted || !s.Pending || got.State != ledger.Claimed || nn.Reserved[ledger.Builder] != 0 || nn.Ended() {
		t.Fatalf("after the interrupt: step %s pending %v, task %s, reserved %d, night ended %v",
			s.State, s.Pending, got.State, nn.Reserved[ledger.Builder], nn.Ended())
	}
	if js, _ := l.JobState(ctx(), s.Job); js != "completed" {
		t.Errorf("the interrupted step's job is %q; it completed with the record, its continuation queued", js)
	}

	// Another owner's process works the night: it leaves the pending step
	// alone (its lease runs an hour) and ends the night with nothing to do.
	other := openAs(t, dsn, ledger.Config{Owner: "other"})
	o := play(t, other, n)
	for _, c := range o.seen {
		if c != nil {
			t.Errorf("another owner was handed the continuation of step %d", c.ID)
		}
	}
	if got, _ := l.Task(ctx(), task.ID); got.State != ledger.Claimed {
		t.Errorf("another owner touched the pending step's task: %s", got.State)
	}

	// The same owner's next process is handed the continuation, in its
	// own queue; the night's chain rests until it is recorded.
	n2 := night(t, l, "interrupt-next")
	var cont *ledger.Step
	var mu sync.Mutex
	playWith(t, l, n2, handlerFunc(func(tx *ledger.Tx) ledger.Plan {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case tx.Continue != nil:
			cont = tx.Continue
			return stepOf(ledger.Claim{Role: ledger.Builder, Worker: "b", Task: cont.Task, Continues: cont.ID, At: t0},
				ledger.Result{Outcome: "done", TaskState: ledger.Done, At: t0})(tx)
		case cont == nil:
			return ledger.Plan{Idle: true}
		}
		return ledger.Plan{End: &ledger.End{Kind: ledger.OutOfWork, Reason: "continued", At: t0}}
	}))
	if cont == nil || cont.ID != s.ID {
		t.Fatalf("the owner's next process was handed %+v, want step %d to continue", cont, s.ID)
	}
	steps, _ := l.Steps(ctx(), n2.ID)
	first, _ := l.Step(ctx(), s.ID)
	if len(steps) != 1 || steps[0].Continues != s.ID || first.Pending {
		t.Errorf("continuation %+v; the first step pending %v", steps, first.Pending)
	}
	if got, _ := l.Task(ctx(), task.ID); got.State != ledger.Done {
		t.Errorf("task %s after its continuation, want done", got.State)
	}
}

func testTakeOver(t *testing.T, dsn string) {
	l := open(t, dsn)
	n := night(t, l, "takeover")
	task := addTask(t, l, "half done", score(3))
	s := interrupted(t, l, n, task)
	pend, _ := l.Pending(ctx())
	if len(pend) != 1 || pend[0].ContJob == 0 {
		t.Fatalf("pending steps %+v", pend)
	}
	// The other owner's wall clock reads two hours later: the step's
	// lease of an hour has run out.
	other := openAs(t, dsn, ledger.Config{Owner: "other", Clock: clock.NewFake(time.Now().Add(2 * time.Hour))})
	var queue []ledger.Task
	play(t, other, n, func(tx *ledger.Tx) ledger.Plan {
		queue, _ = tx.ActiveTasks(ctx())
		return ledger.Plan{End: &ledger.End{Kind: ledger.OutOfWork, Reason: "looked", At: t0}}
	})
	if len(queue) != 1 || queue[0].State != ledger.Queued || !queue[0].Front {
		t.Errorf("the other owner saw %+v; want the task back at the front of the queue", queue)
	}
	got, _ := l.Step(ctx(), s.ID)
	if got.Pending || got.State != ledger.Interrupted {
		t.Errorf("the step after the takeover: %+v", got)
	}
	if js, _ := l.JobState(ctx(), pend[0].ContJob); js != "cancelled" {
		t.Errorf("the continuation job is %q, want cancelled", js)
	}
}

func testFailByHand(t *testing.T, dsn string) {
	l := open(t, dsn)
	n := night(t, l, "by-hand")
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

func testNightOnce(t *testing.T, dsn string) {
	l := open(t, dsn)
	a := night(t, l, "once")
	b := night(t, l, "once")
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

func testResume(t *testing.T, dsn string) {
	l := open(t, dsn)
	n := night(t, l, "resume")
	f, err := l.AddFailure(ctx(), ledger.Failure{Night: n.ID, Scope: ledger.SystemScope, Rule: "auth", Reason: "401", At: t0})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.EndNight(ctx(), n.ID, ledger.SystemStopped, "stopped until a person acts: 401", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	r, err := l.Resume(ctx(), n.ID, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := []ledger.Stop{{At: t0.Add(time.Minute), End: ledger.SystemStopped, Reason: "stopped until a person acts: 401", ResumedAt: t0.Add(time.Hour), Owner: "box"}}
	if r.Ended() || r.StopMark() != f.ID || !cmp.Equal(want, r.Stops) || !r.CutShort() {
		t.Errorf("resumed night: ended %v, stop mark %d (want %d), stops %+v, cut short %v", r.Ended(), r.StopMark(), f.ID, r.Stops, r.CutShort())
	}
	// A night that ended any other way is not reopened.
	if _, err := l.EndNight(ctx(), n.ID, ledger.WindowClosed, "the window closed", t0.Add(8*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if r, _ := l.Resume(ctx(), n.ID, t0.Add(9*time.Hour)); !r.Ended() || len(r.Stops) != 1 {
		t.Errorf("a window-closed night was resumed: %+v", r)
	}
}

func testNoteOnce(t *testing.T, dsn string) {
	l := open(t, dsn)
	n := night(t, l, "notes")
	for i := range 3 {
		added, err := l.AddNote(ctx(), ledger.Note{Night: n.ID, At: t0, Kind: "waiting", Text: "the builder waits on the judge"})
		if err != nil || added != (i == 0) {
			t.Errorf("note %d: added %v, %v", i, added, err)
		}
	}
	if ns, _ := l.Notes(ctx(), n.ID); len(ns) != 1 {
		t.Errorf("notes %+v, want one", ns)
	}
}

// Regression: the ledger stored what it was given, and only the report
// redacted on display; anyone reading the database (sqlite3, psql, a
// report from a process without the key in its environment) read the
// key a step's answer, a failure or a note held.
func testRedactedAtWrite(t *testing.T, dsn string) {
	const key = "sk-ant-api03-ledger-0123456789"
	red := func(s string) string { return strings.ReplaceAll(s, key, "[redacted]") }
	l := openAs(t, dsn, ledger.Config{Owner: "box", Redact: red})
	n := night(t, l, "secrets")
	task, err := l.AddTask(ctx(), ledger.NewTask{Title: "use " + key, Body: "the key is " + key, Score: score(5)}, t0)
	if err != nil {
		t.Fatal(err)
	}
	play(t, l, n, stepOf(ledger.Claim{Role: ledger.Builder, Worker: "b", Task: task.ID, At: t0},
		ledger.Result{State: ledger.StepParked, Outcome: "parked", Reason: "printed " + key, Answer: "ANTHROPIC_API_KEY=" + key,
			Checks: []string{"cmd:echo " + key}, At: t0,
			Failures: []ledger.Failure{{Scope: ledger.TaskScope, Rule: "failed-step", Reason: "401 for key " + key}},
			Park:     &ledger.ParkedAction{Action: `run_command {"command":"curl -H 'x-api-key: ` + key + `'"}`, Reason: "asks " + key, Deadline: t0.Add(time.Hour)}}))
	if _, err := l.AddNote(ctx(), ledger.Note{Night: n.ID, At: t0, Kind: "waiting", Text: "saw " + key}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AddTaskNote(ctx(), ledger.TaskNote{Task: task.ID, Night: n.ID, Text: "remember " + key, At: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AddFailure(ctx(), ledger.Failure{Night: n.ID, Scope: ledger.SystemScope, Reason: "auth " + key, At: t0}); err != nil {
		t.Fatal(err)
	}
	// The night above ended out of work; another one ends with a reason.
	if _, err := l.EndNight(ctx(), night(t, l, "stopped").ID, ledger.SystemStopped, "stopped: "+key, t0); err != nil {
		t.Fatal(err)
	}
	steps, _ := l.Steps(ctx(), n.ID)
	fails, _ := l.Failures(ctx(), n.ID)
	notes, _ := l.Notes(ctx(), n.ID)
	tnotes, _ := l.TaskNotes(ctx(), task.ID)
	parked, _ := l.ParkedActions(ctx())
	tasks, _ := l.Tasks(ctx())
	nights, _ := l.Nights(ctx())
	stored := fmt.Sprint(steps, fails, notes, tnotes, parked, tasks, nights)
	if strings.Contains(stored, key) {
		t.Errorf("the ledger stored the key:\n%s", stored)
	}
	if got := strings.Count(stored, "[redacted]"); got != 12 {
		t.Errorf("%d texts redacted, want 12 (is everything there?):\n%s", got, stored)
	}
}
