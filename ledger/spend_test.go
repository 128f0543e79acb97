package ledger_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm/models"
)

// testSpend: a step's cost and prompt-cache tokens are recorded with it,
// its cost NULL when unknown (never 0), and totalled per night and per
// worker: in the recording transactions, for the night's budgets, and
// from the steps, for the report.
func testSpend(t *testing.T, dsn string) {
	l := open(t, dsn)
	n := night(t, l, "spend")
	var inTx ledger.Spending
	play(t, l, n,
		stepOf(ledger.Claim{Role: ledger.Proposer, Worker: "p", At: t0},
			ledger.Result{At: t0, Tokens: 1000, CacheWriteTokens: 600, CacheReadTokens: 0, Cost: models.USD(0.25)}),
		stepOf(ledger.Claim{Role: ledger.Proposer, Worker: "p", At: t0},
			ledger.Result{At: t0, Tokens: 1000, CacheReadTokens: 600, Cost: models.USD(0.125)}),
		func(tx *ledger.Tx) ledger.Plan {
			inTx, _ = tx.Spend(ctx())
			return stepOf(ledger.Claim{Role: ledger.Judge, Worker: "j", At: t0}, ledger.Result{At: t0, Tokens: 40})(tx)
		},
		stepOf(ledger.Claim{Role: ledger.Judge, Worker: "j", At: t0}, ledger.Result{At: t0, Cost: models.USD(0)}))
	if want := (ledger.Spend{Tokens: 2000, CacheWriteTokens: 600, CacheReadTokens: 600, Cost: models.USD(0.375), KnownUSD: 0.375}); !cmp.Equal(want, inTx.Total) {
		t.Errorf("the night's spend in the transaction before the judge's steps = %+v, want %+v", inTx.Total, want)
	}
	steps, err := l.Steps(ctx(), n.ID)
	if err != nil || len(steps) != 4 {
		t.Fatalf("steps %+v, %v", steps, err)
	}
	var costs []string
	for _, s := range steps {
		costs = append(costs, s.Cost.String())
	}
	if diff := cmp.Diff([]string{"$0.2500", "$0.1250", "unknown", "$0.0000"}, costs); diff != "" {
		t.Errorf("the steps' costs (-want +got):\n%s", diff)
	}
	if s := steps[0]; s.CacheWriteTokens != 600 || s.CacheReadTokens != 0 || steps[1].CacheReadTokens != 600 {
		t.Errorf("cache tokens of the proposer's steps: %+v, %+v", s, steps[1])
	}
	p := ledger.WorkerKey{Role: ledger.Proposer, Worker: "p"}
	j := ledger.WorkerKey{Role: ledger.Judge, Worker: "j"}
	want := ledger.Spending{
		Total: ledger.Spend{Tokens: 2040, CacheWriteTokens: 600, CacheReadTokens: 600, Cost: models.Unknown, KnownUSD: 0.375, Unpriced: 1},
		ByWorker: map[ledger.WorkerKey]ledger.Spend{
			p: {Tokens: 2000, CacheWriteTokens: 600, CacheReadTokens: 600, Cost: models.USD(0.375), KnownUSD: 0.375},
			j: {Tokens: 40, Cost: models.Unknown, Unpriced: 1},
		},
	}
	got, err := l.NightSpend(ctx(), n.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NightSpend (-want +got):\n%s", diff)
	}
	nn, err := l.Night(ctx(), n.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Total, nn.Spend); diff != "" {
		t.Errorf("Night().Spend (-want +got):\n%s", diff)
	}
	all, err := l.Nights(ctx())
	if err != nil || len(all) != 1 || !cmp.Equal(want.Total, all[0].Spend) {
		t.Errorf("Nights() = %+v, %v; want its spend %+v", all, err, want.Total)
	}
	if tok, _ := l.NightTokens(ctx(), n.ID); tok.Total != 2040 {
		t.Errorf("NightTokens = %+v", tok)
	}
	empty := night(t, l, "nothing spent")
	if got, _ := l.Night(ctx(), empty.ID); !got.Spend.Cost.Known() {
		t.Errorf("a night without steps cost %s, want $0", got.Spend.Cost)
	}
}

// TestALedgerOfAnEarlierVersionReadsItsStepsUnpriced: a ledger written
// before steps had a cost gets the columns when it is opened, and its old
// steps read unknown, never free.
func TestALedgerOfAnEarlierVersionReadsItsStepsUnpriced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	l := open(t, path)
	n := night(t, l, "old")
	play(t, l, n, stepOf(ledger.Claim{Role: ledger.Proposer, Worker: "p", At: t0}, ledger.Result{At: t0, Tokens: 30, Cost: models.USD(1)}))
	l.Close(ctx()) //nolint:errcheck // reopened below
	// What an earlier version left: no cost, no cache tokens.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"ALTER TABLE ns_steps DROP COLUMN cost_usd", "ALTER TABLE ns_steps DROP COLUMN cache_write_tokens",
		"ALTER TABLE ns_steps DROP COLUMN cache_read_tokens", "ALTER TABLE ns_tokens DROP COLUMN cost_usd",
		"ALTER TABLE ns_tokens DROP COLUMN unpriced",
	} {
		if _, err := db.ExecContext(context.Background(), stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close() //nolint:errcheck // test
	l = open(t, path)
	steps, err := l.Steps(ctx(), n.ID)
	if err != nil || len(steps) != 1 || steps[0].Cost.Known() || steps[0].Tokens != 30 {
		t.Fatalf("the old step reads %+v, %v; want its tokens and an unknown cost", steps, err)
	}
	if got, _ := l.Night(ctx(), n.ID); got.Spend.Cost.Known() || got.Spend.Unpriced != 1 {
		t.Errorf("the old night's spend is %+v, want unknown", got.Spend)
	}
}
