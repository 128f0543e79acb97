package ledger_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/nightshift-dev/nightshift/ledger"
)

// repeat is a Handler that claims the same judge step b.N times, then ends
// the night.
type repeat struct{ left int }

func (r *repeat) Decide(context.Context, *ledger.Tx) (ledger.Plan, error) {
	if r.left == 0 {
		return ledger.Plan{End: &ledger.End{Kind: ledger.CeilingsReached, Reason: "done", At: t0}}, nil
	}
	r.left--
	return stepOf(ledger.Claim{Role: ledger.Judge, Worker: "j", At: t0}, ledger.Result{Outcome: "ok", At: t0})(nil), nil
}

// BenchmarkStepJob measures one step's bookkeeping on SQLite: the job's
// fetch, the claiming transaction, and the transaction that records the
// step, queues the chain's next job and completes this one.
func BenchmarkStepJob(b *testing.B) {
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
	b.ResetTimer()
	w, err := l.Work(ctx, ledger.WorkConfig{Night: n.ID, Handler: &repeat{left: b.N}})
	if err != nil {
		b.Fatal(err)
	}
	<-w.Ended()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}
