package night_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/ledger/ledgertest"
	"github.com/nightshift-dev/nightshift/night"
)

// BenchmarkBuilderSteps measures how many builder steps per second the
// scheduler and the ledger sustain with a builder that takes no time: each
// step is a River job fetched, a claiming transaction (the night's state
// read, the step decided and claimed), a recording transaction (the result,
// the tokens, the chain's next job) and a new task to keep the backlog
// full. The target is at least 200 steps/s on SQLite. It runs on SQLite,
// and on PostgreSQL when NIGHTSHIFT_TEST_PG names a server:
//
//	go test ./night -run XXX -bench BuilderSteps -benchtime 1000x
func BenchmarkBuilderSteps(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchSteps(b, filepath.Join(b.TempDir(), "bench.db")) })
	b.Run("postgres", func(b *testing.B) {
		base := os.Getenv("NIGHTSHIFT_TEST_PG")
		if base == "" {
			b.Skip("NIGHTSHIFT_TEST_PG is not set")
		}
		benchSteps(b, ledgertest.FreshPostgres(b, base))
	})
}

func benchSteps(b *testing.B, dsn string) {
	ctx := context.Background()
	p, err := night.ParsePipeline(fmt.Appendf(nil, `
window: {start: "22:00", end: "06:00"}
models: {b: {provider: scripted, scenario: unused.yaml}}
roles: {builder: {models: [b], ceiling: %d}}
`, b.N))
	if err != nil {
		b.Fatal(err)
	}
	p.WorkDir = filepath.Join(b.TempDir(), "work")
	l, err := ledger.Open(ctx, dsn, ledger.Config{})
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
