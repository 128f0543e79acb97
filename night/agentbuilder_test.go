package night_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/night"
)

// fetchScenario asks to run a command, which the default gate asks a person
// about (danger=ask): at night that parks the task. Once the command ran,
// the model says so.
const fetchScenario = `
turns:
  - tool_calls: [{name: run_command, input: {command: "echo the book | tee book.txt"}}]
  - text: "Fetched the book into book.txt."
`

// TestParkApproveRun goes through parking with the real agent builder and
// gate: the night parks the task with the exact call the gate asked about,
// a person approves it, and at the next night's first step that same call
// runs and the task is done.
func TestParkApproveRun(t *testing.T) {
	ctx := context.Background()
	f := setup(t, twoBuilders)
	sc, err := scripted.Parse([]byte(fetchScenario))
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]llm.Model{"b1": scripted.New(sc, scripted.Config{Clock: f.clk})}
	task := f.add("fetch the book", 5)
	run := func() *night.Summary {
		t.Helper()
		sum, err := night.Run(ctx, night.Config{Pipeline: f.p, Ledger: f.l, Models: models, Clock: f.clk, Idle: 4 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	run()
	ps, err := f.l.ParkedActions(ctx)
	if err != nil || len(ps) != 1 {
		t.Fatalf("parked actions %+v, %v; want one", ps, err)
	}
	if want := `run_command {"command":"echo the book | tee book.txt"}`; ps[0].Action != want {
		t.Errorf("parked action %q, want the exact call %q", ps[0].Action, want)
	}
	book := filepath.Join(f.p.Path(f.p.WorkDir), "task-1", "book.txt")
	if _, err := os.Stat(book); err == nil {
		t.Fatal("the command ran before anyone approved it")
	}
	if _, err := f.l.Decide(ctx, task.ID, ledger.Approved, f.clk.Now()); err != nil {
		t.Fatal(err)
	}
	f.clk.Advance(16 * time.Hour)
	sum := run()
	got, _ := f.l.Task(ctx, task.ID)
	ps, _ = f.l.ParkedActions(ctx)
	if got.State != ledger.Done || !ps[0].Used || sum.Finished[ledger.Builder] != 1 {
		t.Errorf("after approval: task %s, approval used %v, builder steps %d", got.State, ps[0].Used, sum.Finished[ledger.Builder])
	}
	if data, err := os.ReadFile(book); err != nil || !strings.Contains(string(data), "the book") {
		t.Errorf("book.txt holds %q (%v): the approved command must have run", data, err)
	}
}
