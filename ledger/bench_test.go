package ledger_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/nightshift-dev/nightshift/ledger"
)

// BenchmarkRunStep measures one step's bookkeeping on SQLite: the claim
// transaction, the River job's fetch, and the completing transaction.
func BenchmarkRunStep(b *testing.B) {
	ctx := context.Background()
	l, err := ledger.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), ledger.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close(ctx) //nolint:errcheck // benchmark cleanup
	n, err := l.StartNight(ctx, "bench", t0, t0, t0)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := l.RunStep(ctx, ledger.Claim{Night: n.ID, Role: ledger.Judge, Worker: "j", At: t0}, ok); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}
