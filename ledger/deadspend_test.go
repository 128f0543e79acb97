package ledger

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/ledger/ledgertest"
	"github.com/nightshift-dev/nightshift/llm/models"
)

// Regression (issue 23): a step whose process died was recorded with no
// tokens and an unknown cost, so that the night's cost read "unknown"
// and its tokens lacked the dead step's. With what its attempt had spent
// by its checkpoint (counted from the attempt's first start), the step
// records its own share, less what the step it continues recorded, and
// the night's totals are every token once, priced.
func TestADeadStepRecordsItsOwnShareOfItsAttemptsSpend(t *testing.T) {
	dsns := map[string]string{"sqlite": filepath.Join(t.TempDir(), "l.db")}
	if pg := os.Getenv("NIGHTSHIFT_TEST_PG"); pg != "" {
		dsns["postgres"] = ledgertest.FreshPostgres(t, pg)
	}
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			t0 := time.Date(2025, 10, 21, 22, 0, 0, 0, time.UTC)
			l, err := Open(ctx, dsn, Config{Owner: "box"})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close(ctx) //nolint:errcheck // test cleanup
			n, err := l.StartNight(ctx, "n", t0, t0.Add(8*time.Hour), t0)
			if err != nil {
				t.Fatal(err)
			}
			task, err := l.AddTask(ctx, NewTask{Title: "a booklet"}, t0)
			if err != nil {
				t.Fatal(err)
			}
			inTx := func(fn func(tx *Tx) error) {
				t.Helper()
				if err := l.b.inTx(ctx, func(q querier, ops jobOps) error {
					tx, err := l.openTx(ctx, q, ops, n.ID)
					if err != nil {
						return err
					}
					return fn(tx)
				}); err != nil {
					t.Fatal(err)
				}
			}
			// The first attempt is interrupted by a signal, with what it spent.
			var first, second Step
			inTx(func(tx *Tx) error {
				s, err := l.claim(ctx, tx, Claim{Role: Builder, Worker: "b1", Task: task.ID, At: t0}, 1)
				if err != nil {
					return err
				}
				first, err = l.record(ctx, tx, s, Result{State: Interrupted, Pending: true, Tokens: 100, CacheWriteTokens: 10, Cost: models.USD(0.10), At: t0.Add(time.Minute)})
				return err
			})
			// Its continuation's process dies; its checkpoint says the
			// attempt had spent 250 tokens, $0.25, since it first started.
			inTx(func(tx *Tx) error {
				s, err := l.claim(ctx, tx, Claim{Role: Builder, Worker: "b1", Task: task.ID, Continues: first.ID, At: t0.Add(2 * time.Minute)}, 2)
				if err != nil {
					return err
				}
				second, err = l.interrupt(ctx, tx.q, s, Recovery{Keep: true, Spent: &Spent{Tokens: 250, CacheWriteTokens: 30, Cost: models.USD(0.25)}},
					"the process died during the step", t0.Add(3*time.Minute))
				return err
			})
			got, err := l.Step(ctx, second.ID)
			if err != nil {
				t.Fatal(err)
			}
			if usd, ok := got.Cost.USD(); got.Tokens != 150 || got.CacheWriteTokens != 20 || !ok || usd < 0.1499 || usd > 0.1501 {
				t.Errorf("the dead step recorded %d tokens (%d cache writes) at %s; want its own 150 (20) at $0.15", got.Tokens, got.CacheWriteTokens, got.Cost)
			}
			sp, err := l.NightSpend(ctx, n.ID)
			if err != nil {
				t.Fatal(err)
			}
			if usd, ok := sp.Total.Cost.USD(); sp.Total.Tokens != 250 || sp.Total.Unpriced != 0 || !ok || usd < 0.2499 || usd > 0.2501 {
				t.Errorf("the night spent %d tokens, %s (%d unpriced); want 250 at $0.25", sp.Total.Tokens, sp.Total.CostText(), sp.Total.Unpriced)
			}
			var running Spending
			inTx(func(tx *Tx) error {
				running, err = tx.Spend(ctx)
				return err
			})
			if running.Total.Tokens != 250 || running.Total.Unpriced != 0 {
				t.Errorf("the night's running totals: %d tokens, %d unpriced; want 250, 0", running.Total.Tokens, running.Total.Unpriced)
			}

			// Without a record of what it spent (another owner's step, its
			// lease run out), its cost stays unknown, as before.
			task2, err := l.AddTask(ctx, NewTask{Title: "a chart"}, t0)
			if err != nil {
				t.Fatal(err)
			}
			var third Step
			inTx(func(tx *Tx) error {
				s, err := l.claim(ctx, tx, Claim{Role: Builder, Worker: "b1", Task: task2.ID, At: t0}, 3)
				if err != nil {
					return err
				}
				third, err = l.interrupt(ctx, tx.q, s, Recovery{}, "its lease ran out", t0.Add(time.Minute))
				return err
			})
			if got, _ := l.Step(ctx, third.ID); got.Cost.Known() {
				t.Errorf("a step whose spend is not known recorded %s", got.Cost)
			}
		})
	}
}
