package night_test

import (
	"context"
	"fmt"
	"github.com/nightshift-dev/nightshift/ledger/ledgertest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/night"
)

const sharedPipeline = `
window: {start: "22:00", end: "06:00"}
models: {b: {provider: scripted, scenario: unused.yaml}}
roles: {builder: {models: [b], ceiling: 100}}
`

// TestTwoProcessesShareOneNight starts two worker processes at the same
// time against one PostgreSQL database: no task is done twice, and the
// ledger adds up. It runs when NIGHTSHIFT_TEST_PG names a server.
func TestTwoProcessesShareOneNight(t *testing.T) {
	base := os.Getenv("NIGHTSHIFT_TEST_PG")
	if base == "" {
		t.Skip("NIGHTSHIFT_TEST_PG is not set")
	}
	ctx := context.Background()
	dsn := ledgertest.FreshPostgres(t, base)
	l, err := ledger.Open(ctx, dsn, ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx) //nolint:errcheck // test cleanup
	const tasks = 30
	for i := range tasks {
		if _, err := l.AddTask(ctx, ledger.NewTask{Title: fmt.Sprint("task ", i)}, dusk); err != nil {
			t.Fatal(err)
		}
	}
	var procs []*exec.Cmd
	for i := range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWorkerProcess$")
		cmd.Env = append(os.Environ(), "NIGHTSHIFT_WORKER_DSN="+dsn, fmt.Sprint("NIGHTSHIFT_WORKER_DIR=", t.TempDir()), fmt.Sprint("NIGHTSHIFT_WORKER_OWNER=w", i))
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
	}
	for _, p := range procs {
		if err := p.Wait(); err != nil {
			t.Fatalf("worker process: %v", err)
		}
	}
	n, err := l.NightByName(ctx, "2025-10-21")
	if err != nil {
		t.Fatal(err)
	}
	steps, _ := l.Steps(ctx, n.ID)
	doneBy := map[int64][]string{}
	owners := map[string]int{}
	for _, s := range steps {
		if s.State == ledger.Finished {
			doneBy[s.Task] = append(doneBy[s.Task], s.Owner)
			owners[s.Owner]++
		}
		if js, _ := l.JobState(ctx, s.Job); js != "completed" {
			t.Errorf("step %d's river job is %q, want completed", s.ID, js)
		}
	}
	for task, by := range doneBy {
		if len(by) != 1 {
			t.Errorf("task %d was done %d times, by %v", task, len(by), by)
		}
	}
	if len(doneBy) != tasks || len(steps) != tasks || n.Reserved[ledger.Builder] != tasks {
		t.Errorf("%d tasks done in %d steps, %d reserved; want %d of each", len(doneBy), len(steps), n.Reserved[ledger.Builder], tasks)
	}
	if len(owners) != 2 {
		t.Logf("only one process did steps: %v (they still shared the night)", owners)
	}
	if !n.Ended() {
		t.Error("the shared night did not end")
	}
}

// workerProcess is what a test's child process starts from, as its
// parent set it up ($NIGHTSHIFT_WORKER_DSN, _DIR and _OWNER): pipeline
// working in the parent's folder, and the shared ledger, closed when the
// test ends. TestWorkerProcess and TestNightProcess both take it.
func workerProcess(t *testing.T, pipeline string) (*night.Pipeline, *ledger.Ledger) {
	t.Helper()
	p, err := night.ParsePipeline([]byte(pipeline))
	if err != nil {
		t.Fatal(err)
	}
	p.WorkDir = filepath.Join(os.Getenv("NIGHTSHIFT_WORKER_DIR"), "work")
	l, err := ledger.Open(context.Background(), os.Getenv("NIGHTSHIFT_WORKER_DSN"), ledger.Config{Owner: os.Getenv("NIGHTSHIFT_WORKER_OWNER")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(context.Background()) }) //nolint:errcheck // test cleanup
	return p, l
}

// TestWorkerProcess is the worker process of TestTwoProcessesShareOneNight.
func TestWorkerProcess(t *testing.T) {
	if os.Getenv("NIGHTSHIFT_WORKER_DSN") == "" {
		t.Skip("only run as a worker process")
	}
	ctx := context.Background()
	p, l := workerProcess(t, sharedPipeline)
	clk := clock.NewFake(dusk)
	b := night.BuilderFunc(func(context.Context, night.Assignment) night.Attempt {
		clk.Advance(time.Minute)
		return night.Attempt{Outcome: agent.Done, Answer: "ok"}
	})
	if _, err := night.Run(ctx, night.Config{Pipeline: p, Ledger: l, Builder: b, Clock: clk}); err != nil {
		t.Fatal(err)
	}
}
