package night_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/ledger/ledgertest"
	"github.com/nightshift-dev/nightshift/night"
)

// The tests of one night shared by several processes on PostgreSQL (issue
// 12): the night's rules are the ledger's, so N processes behave as one
// would, up to the steps in flight when a rule fires (at most one per
// other process).

// pgBase is the server NIGHTSHIFT_TEST_PG names; the test is skipped
// without one.
func pgBase(t *testing.T) string {
	t.Helper()
	base := os.Getenv("NIGHTSHIFT_TEST_PG")
	if base == "" {
		t.Skip("NIGHTSHIFT_TEST_PG is not set")
	}
	return base
}

// processes starts n processes sharing the night of pipeline on dsn, each
// with its own owner, and waits for them to end. Two gates make the start
// of the night the same whatever the machine's load: each process takes
// its first step and holds it until all n hold one (so the first n steps
// are the n best tasks, taken at once); and each holds its second attempt
// until all n have recorded their first step (so a rule the first steps
// fire is in the ledger before any process finishes a second one). Without
// the second gate, a process slow to record (descheduled, or waiting for
// the night's row while another process takes it again and again) could
// record its first step only after the others had done every other task:
// the night would then be right, and the test's expectations wrong.
func processes(t *testing.T, dsn string, n int, pipeline, behaviour string) {
	t.Helper()
	type proc struct {
		cmd *exec.Cmd
		in  io.WriteCloser
		out *bufio.Scanner
	}
	var ps []proc
	for i := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNightProcess$")
		cmd.Env = append(os.Environ(), "NIGHTSHIFT_WORKER_DSN="+dsn, "NIGHTSHIFT_WORKER_DIR="+t.TempDir(),
			fmt.Sprint("NIGHTSHIFT_WORKER_OWNER=p", i), "NIGHTSHIFT_WORKER_PIPELINE="+pipeline, "NIGHTSHIFT_WORKER_BEHAVIOUR="+behaviour)
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, proc{cmd, in, bufio.NewScanner(out)})
	}
	// Each says "ready" holding its first step, then "recorded" once that
	// step is in the ledger; each gate opens for all at once.
	for _, gate := range []string{"ready", "recorded"} {
		for _, p := range ps {
			for p.out.Scan() && p.out.Text() != gate {
			}
		}
		for _, p := range ps {
			fmt.Fprintln(p.in, "go")
		}
	}
	for _, p := range ps {
		p.in.Close() //nolint:errcheck // the child has read what it needs
		for p.out.Scan() {
		}
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("night process: %v", err)
		}
	}
}

// TestNightProcess is one process of the tests above.
func TestNightProcess(t *testing.T) {
	if os.Getenv("NIGHTSHIFT_WORKER_DSN") == "" {
		t.Skip("only run as a night process")
	}
	ctx := context.Background()
	p, l := workerProcess(t, os.Getenv("NIGHTSHIFT_WORKER_PIPELINE"))
	clk := clock.NewFake(dusk)
	gate := bufio.NewScanner(os.Stdin)
	var mu sync.Mutex
	attempts := 0
	b := night.BuilderFunc(func(_ context.Context, a night.Assignment) night.Attempt {
		mu.Lock()
		attempts++
		nth := attempts
		mu.Unlock()
		switch nth {
		case 1:
			fmt.Println("ready")
			gate.Scan() // every process holds its first step
		case 2:
			gate.Scan() // every process recorded its first step
		}
		clk.Advance(time.Minute)
		switch os.Getenv("NIGHTSHIFT_WORKER_BEHAVIOUR") {
		case "second-failure":
			if a.Worker == "m1" && (a.Task.Title == "A" || a.Task.Title == "B") {
				return night.Attempt{Outcome: agent.Unverified, Reason: "half done", Calls: 3, Tokens: 100}
			}
		case "budget":
			return night.Attempt{Outcome: agent.Done, Answer: "ok", Calls: 3, Tokens: 1459}
		}
		return night.Attempt{Outcome: agent.Done, Answer: "ok", Calls: 3, Tokens: 100}
	})
	// The first step this process records is its first step: say so once
	// it is committed.
	var recorded sync.Once
	events := event.SinkFunc(func(e event.Event) {
		if e.Type == "step" {
			recorded.Do(func() { fmt.Println("recorded") })
		}
	})
	if _, err := night.Run(ctx, night.Config{Pipeline: p, Ledger: l, Builder: b, Clock: clk, Events: events}); err != nil {
		t.Fatal(err)
	}
}

// sharedNight opens a fresh PostgreSQL ledger with tasks by title.
func sharedNight(t *testing.T, titles ...string) (*ledger.Ledger, string) {
	t.Helper()
	dsn := ledgertest.FreshPostgres(t, pgBase(t))
	l, err := ledger.Open(context.Background(), dsn, ledger.Config{Owner: "reader"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(context.Background()) }) //nolint:errcheck // test cleanup
	for i, title := range titles {
		score := float64(len(titles) - i)
		if _, err := l.AddTask(context.Background(), ledger.NewTask{Title: title, Score: &score}, dusk); err != nil {
			t.Fatal(err)
		}
	}
	return l, dsn
}

func theNight(t *testing.T, l *ledger.Ledger) (ledger.Night, []ledger.Step, []ledger.Failure) {
	t.Helper()
	n, err := l.NightByName(context.Background(), "2025-10-21")
	if err != nil {
		t.Fatal(err)
	}
	steps, _ := l.Steps(context.Background(), n.ID)
	fs, _ := l.Failures(context.Background(), n.ID)
	return n, steps, fs
}

// logNight says how a shared night went, when the test failed.
func logNight(t *testing.T, n ledger.Night, steps []ledger.Step, fs []ledger.Failure) {
	t.Helper()
	if !t.Failed() {
		return
	}
	t.Logf("the night ended %s: %s", n.End, n.Reason)
	for _, s := range steps {
		t.Logf("step %d %s/%s task=%d owner=%s %s %s", s.ID, s.Role, s.Worker, s.Task, s.Owner, s.State, s.Outcome)
	}
	for _, f := range fs {
		t.Logf("failure %d %s %s %s/%s task=%d: %s", f.ID, f.Scope, f.Rule, f.Role, f.Worker, f.Task, f.Reason)
	}
}

// TestProcessesShareOneSecondFailureRule: process 1 failed task A on m1,
// process 2 task B on m1, and no second-failure was recorded: each process
// kept the tasks a model failed in its memory, and m1 took 4 more steps.
// The failures are read from the ledger in the transaction that records the
// step: one second-failure sends m1 out for every process, and no step on m1
// starts after it (the ones in flight then, at most one per other process,
// end as they would).
func TestProcessesShareOneSecondFailureRule(t *testing.T) {
	const pipeline = `
window: {start: "22:00", end: "06:00"}
models:
  m1: {provider: scripted, scenario: unused.yaml}
  m2: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [m1, m2], ceiling: 100}
`
	for _, n := range []int{2, 4} {
		t.Run(fmt.Sprintf("%d processes", n), func(t *testing.T) {
			l, dsn := sharedNight(t, "A", "B", "C", "D", "E", "F", "G", "H", "I", "J")
			processes(t, dsn, n, pipeline, "second-failure")
			nn, steps, fs := theNight(t, l)
			defer logNight(t, nn, steps, fs)
			var seconds []ledger.Failure
			for _, f := range fs {
				if f.Rule == string(night.SecondFailure) {
					seconds = append(seconds, f)
				}
			}
			if len(seconds) != 1 || seconds[0].Worker != "m1" || seconds[0].Scope != ledger.WorkerScope {
				t.Fatalf("second failures %+v, want exactly one, sending m1 out", seconds)
			}
			// m1 is out once the rule fires: its next step, anywhere, is
			// m2's, and no step on m1 begins after one on m2 did.
			firstM2 := int64(0)
			for _, s := range steps {
				if s.Worker == "m2" && firstM2 == 0 {
					firstM2 = s.ID
				}
				if s.Worker == "m1" && firstM2 != 0 {
					t.Errorf("step %d on m1 began after step %d on m2: m1 was out", s.ID, firstM2)
				}
			}
			if firstM2 == 0 {
				t.Errorf("no step on m2: m1 was never sent out")
			}
			done := 0
			for _, s := range steps {
				if s.State == ledger.Finished {
					done++
				}
			}
			if done != 8 {
				t.Errorf("%d tasks done, want the 8 that do not fail (A and B are skipped tonight)", done)
			}
		})
	}
}

// TestProcessesShareOneTokenBudget: with budget_tokens 5000 one process
// stopped at 4 steps / 5,836 tokens, two processes took 8 steps / 11,704
// tokens, each ending "the night's token budget of 5000 is spent". The
// night's tokens are totalled in the ledger, in the transaction that
// records each step: the step that spends the budget ends the night for
// every process (a step in flight then still ends, at most one per other
// process). A model's own budget is shared the same way.
func TestProcessesShareOneTokenBudget(t *testing.T) {
	for _, n := range []int{2, 4} {
		t.Run(fmt.Sprintf("%d processes share the night's budget", n), func(t *testing.T) {
			l, dsn := sharedNight(t, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p")
			processes(t, dsn, n, `
window: {start: "22:00", end: "06:00"}
budget_tokens: 5000
models: {m1: {provider: scripted, scenario: unused.yaml}}
roles: {builder: {models: [m1], ceiling: 100}}
`, "budget")
			nn, steps, fs := theNight(t, l)
			defer logNight(t, nn, steps, fs)
			var total int64
			for _, s := range steps {
				total += s.Tokens
			}
			if nn.End != ledger.CeilingsReached || !strings.Contains(nn.Reason, "token budget of 5000 is spent") {
				t.Fatalf("the night ended %s: %s", nn.End, nn.Reason)
			}
			// One process: 4 steps of 1459 tokens. Steps in flight when
			// the 4th is recorded: at most n-1 more.
			if len(steps) < 4 || len(steps) > 4+n-1 || total != int64(len(steps))*1459 {
				t.Errorf("%d steps spent %d tokens; want 4 to %d steps of 1459", len(steps), total, 4+n-1)
			}
		})
		t.Run(fmt.Sprintf("%d processes share a model's budget", n), func(t *testing.T) {
			l, dsn := sharedNight(t, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j")
			processes(t, dsn, n, `
window: {start: "22:00", end: "06:00"}
models:
  m1: {provider: scripted, scenario: unused.yaml, budget_tokens: 300}
  m2: {provider: scripted, scenario: unused.yaml}
roles: {builder: {models: [m1, m2], ceiling: 100}}
`, "share")
			nn, steps, fs := theNight(t, l)
			defer logNight(t, nn, steps, fs)
			budgets, m1 := 0, 0
			for _, f := range fs {
				if f.Rule == string(night.BudgetSpent) {
					budgets++
				}
			}
			for _, s := range steps {
				if s.Worker == "m1" {
					m1++
				}
			}
			// One process: m1 takes 3 steps of 100 tokens, then is out.
			if budgets != 1 || m1 < 3 || m1 > 3+n-1 {
				t.Errorf("%d budget failures, %d steps on m1; want one failure after 3 to %d steps", budgets, m1, 3+n-1)
			}
		})
	}
}
