package night_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/night"
)

// A night runs a pipeline's roles over the ledger's backlog through its
// window, on an injected clock; here the builder is a function, and each
// failed attempt is charged to the task, which then sits out the night.
func Example() {
	dir, _ := os.MkdirTemp("", "night-example")
	defer os.RemoveAll(dir)
	p, err := night.ParsePipeline([]byte(`
window: {start: "22:00", end: "06:00"}
models: {b: {provider: scripted, scenario: unused.yaml}}
roles: {builder: {models: [b], ceiling: 3, no_judge: true}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	p.WorkDir = filepath.Join(dir, "work")
	ctx := context.Background()
	l, err := ledger.Open(ctx, filepath.Join(dir, "night.db"), ledger.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close(ctx) //nolint:errcheck // an example
	clk := clock.NewFake(time.Date(2025, 10, 21, 22, 0, 0, 0, time.UTC))
	for i, title := range []string{"a chart of the tides", "a booklet"} {
		score := float64(9 - i)
		l.AddTask(ctx, ledger.NewTask{Title: title, Score: &score}, clk.Now()) //nolint:errcheck // an example
	}
	builder := night.BuilderFunc(func(_ context.Context, a night.Assignment) night.Attempt {
		clk.Advance(10 * time.Minute)
		if a.Task.Title == "a booklet" {
			return night.Attempt{Outcome: agent.Done, Answer: "built it"}
		}
		return night.Attempt{Outcome: agent.Unverified, Answer: "done", Checks: []string{"judge"}, Reason: "only 3 of the 5 items"}
	})
	sum, err := night.Run(ctx, night.Config{Pipeline: p, Ledger: l, Builder: builder, Clock: clk})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("builder steps:", sum.Finished[ledger.Builder])
	fs, _ := l.Failures(ctx, sum.Night.ID)
	for _, f := range fs {
		fmt.Println(f.Scope, f.Rule)
	}
	// Output:
	// builder steps: 2
	// task failed-step
}
