package night_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/night"
)

// BenchmarkBuilderSteps measures how many builder steps per second the
// scheduler and the ledger sustain on SQLite with a zero-latency builder:
// each step is a claim, a River job, a recorded result and a new task to
// keep the backlog full. The target is at least 200 steps/s.
func BenchmarkBuilderSteps(b *testing.B) {
	ctx := context.Background()
	p, err := night.ParsePipeline(fmt.Appendf(nil, `
window: {start: "22:00", end: "06:00"}
models: {b: {provider: scripted, scenario: unused.yaml}}
roles: {builder: {models: [b], ceiling: %d}}
`, b.N))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	p.WorkDir = filepath.Join(dir, "work")
	l, err := ledger.Open(ctx, filepath.Join(dir, "bench.db"), ledger.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close(ctx) //nolint:errcheck // benchmark cleanup
	start := time.Date(2025, 10, 21, 22, 0, 0, 0, time.UTC)
	for i := range 10 {
		if _, err := l.AddTask(ctx, ledger.NewTask{Title: fmt.Sprint("seed ", i)}, start); err != nil {
			b.Fatal(err)
		}
	}
	n := 0
	builder := night.BuilderFunc(func(ctx context.Context, a night.Assignment) night.Attempt {
		n++
		l.AddTask(ctx, ledger.NewTask{Title: fmt.Sprint("next ", n)}, start) //nolint:errcheck // a missing refill shows as fewer steps
		return night.Attempt{Outcome: agent.Done, Answer: "ok", Tokens: 10}
	})
	b.ResetTimer()
	sum, err := night.Run(ctx, night.Config{Pipeline: p, Ledger: l, Builder: builder, Clock: clock.NewFake(start), Restore: func(string) error { return nil }})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if got := sum.Finished[ledger.Builder]; got != b.N {
		b.Fatalf("finished %d builder steps, want %d (%s: %s)", got, b.N, sum.Night.End, sum.Night.Reason)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}
