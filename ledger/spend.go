package ledger

import (
	"context"
	"fmt"

	"github.com/nightshift-dev/nightshift/llm/models"
)

// Spend is what steps spent: their tokens (input and output; the tokens
// written to and read from the prompt cache are among the input, as in
// llm.Usage) and their cost by the model table.
type Spend struct {
	Tokens           int64 `json:"tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens"`
	// Cost is the steps' cost in US dollars. It is Unknown (JSON null)
	// as soon as one step's cost is (Unpriced > 0): a sum with an unknown
	// part is not known either, and never passes for the whole.
	Cost models.Cost `json:"cost_usd"`
	// KnownUSD is the sum of the costs that are known, and Unpriced
	// counts the steps whose cost is not (a model the table has no price
	// for, a step recorded by an earlier version, a step a dead process
	// left): a reader may show "at least $KnownUSD".
	KnownUSD float64 `json:"known_cost_usd"`
	Unpriced int     `json:"unpriced_steps,omitempty"`
}

// add adds one step's (or one row's) spend.
func (s *Spend) add(tokens, cacheWrite, cacheRead int64, knownUSD float64, unpriced int) {
	s.Tokens += tokens
	s.CacheWriteTokens += cacheWrite
	s.CacheReadTokens += cacheRead
	s.KnownUSD += knownUSD
	s.Unpriced += unpriced
	s.Cost = models.Unknown
	if s.Unpriced == 0 {
		s.Cost = models.USD(s.KnownUSD)
	}
}

// Add adds another spend to s: a report's total over several nights.
func (s *Spend) Add(o Spend) {
	s.add(o.Tokens, o.CacheWriteTokens, o.CacheReadTokens, o.KnownUSD, o.Unpriced)
}

// CostText says the cost in words: the dollars when known, else that it
// is unknown with the known part as a floor, since "at least $3" is
// still worth reading in the morning.
func (s Spend) CostText() string {
	// Unpriced decides, not Cost: a Spend with no steps in it has the
	// zero (unknown) Cost, yet it cost nothing.
	if s.Unpriced == 0 {
		return fmt.Sprintf("$%.4f", s.KnownUSD)
	}
	return fmt.Sprintf("unknown (at least $%.4f; %d step(s) without a price in the model table)", s.KnownUSD, s.Unpriced)
}

// Spending is what a night's steps spent, in all and per worker.
type Spending struct {
	Total    Spend
	ByWorker map[WorkerKey]Spend
}

func (sp *Spending) add(k WorkerKey, tokens, cacheWrite, cacheRead int64, knownUSD float64, unpriced int) {
	if sp.ByWorker == nil {
		sp.ByWorker = map[WorkerKey]Spend{}
	}
	w := sp.ByWorker[k]
	w.add(tokens, cacheWrite, cacheRead, knownUSD, unpriced)
	sp.ByWorker[k] = w
	sp.Total.add(tokens, cacheWrite, cacheRead, knownUSD, unpriced)
}

// tokens is the Tokens view of a spending.
func (sp Spending) tokens() Tokens {
	t := Tokens{Total: sp.Total.Tokens, ByWorker: map[WorkerKey]int64{}}
	for k, s := range sp.ByWorker {
		t.ByWorker[k] = s.Tokens
	}
	return t
}

// nightSpendSQL reads the totals the recording transactions keep per
// night and worker (ns_tokens): one row per worker, at every step.
var nightSpendSQL = hotSQL("SELECT role, worker, tokens, cache_write_tokens, cache_read_tokens, cost_usd, unpriced FROM ns_tokens WHERE night_id = ?")

// runningSpend reads a night's running totals (ns_tokens), as the
// night's decisions read them.
func runningSpend(ctx context.Context, q querier, night int64) (Spending, error) {
	sp := Spending{Total: Spend{Cost: models.USD(0)}, ByWorker: map[WorkerKey]Spend{}}
	r, err := q.query(ctx, nightSpendSQL, night)
	if err != nil {
		return sp, err
	}
	defer r.Close()
	for r.Next() {
		var k WorkerKey
		var tok, cw, cr int64
		var usd float64
		var unpriced int
		if err := r.Scan(&k.Role, &k.Worker, &tok, &cw, &cr, &usd, &unpriced); err != nil {
			return sp, err
		}
		sp.add(k, tok, cw, cr, usd, unpriced)
	}
	return sp, r.Err()
}

// Spend returns what tonight's recorded steps spent, in all and per
// worker, as every process committed it: the night's budgets read it.
func (t *Tx) Spend(ctx context.Context) (Spending, error) { return runningSpend(ctx, t.q, t.night.ID) }

// stepSpendSQL sums the steps themselves, which say what each cost: a
// step whose cost is NULL (unknown) counts as unpriced. Running steps
// have spent nothing yet that anyone knows.
const stepSpendSQL = `SELECT night_id, role, worker, CAST(SUM(tokens) AS BIGINT), CAST(SUM(cache_write_tokens) AS BIGINT),
	CAST(SUM(cache_read_tokens) AS BIGINT), SUM(cost_usd), CAST(SUM(CASE WHEN cost_usd IS NULL THEN 1 ELSE 0 END) AS BIGINT)
	FROM ns_steps WHERE state <> 'running'`

// stepSpend reads the spending of the nights the steps of where (and
// args) belong to, by night.
func stepSpend(ctx context.Context, q querier, where string, args ...any) (map[int64]Spending, error) {
	r, err := q.query(ctx, stepSpendSQL+where+" GROUP BY night_id, role, worker", args...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out := map[int64]Spending{}
	for r.Next() {
		var night, tok, cw, cr, unpriced int64
		var k WorkerKey
		var usd *float64
		if err := r.Scan(&night, &k.Role, &k.Worker, &tok, &cw, &cr, &usd, &unpriced); err != nil {
			return nil, err
		}
		sp := out[night]
		sp.add(k, tok, cw, cr, deref(usd), int(unpriced))
		out[night] = sp
	}
	return out, r.Err()
}

func deref(v *float64) float64 {
	if v == nil {
		return 0
	}
	return *v
}

// NightSpend returns what a night's steps spent, in all and per worker:
// tokens, the prompt cache's share of them, and the cost (unknown when
// any step's is). It sums the steps' own records, so a night recorded by
// an earlier version, whose steps have no cost, reads unpriced, never
// free.
func (l *Ledger) NightSpend(ctx context.Context, night int64) (Spending, error) {
	all, err := stepSpend(ctx, l.b.pool(), " AND night_id = ?", night)
	if err != nil {
		return Spending{}, err
	}
	sp, ok := all[night]
	if !ok {
		sp = Spending{Total: Spend{Cost: models.USD(0)}, ByWorker: map[WorkerKey]Spend{}}
	}
	return sp, nil
}

// withSpend fills in the nights' Spend.
func withSpend(ctx context.Context, q querier, ns []Night) error {
	var all map[int64]Spending
	var err error
	if len(ns) == 1 {
		all, err = stepSpend(ctx, q, " AND night_id = ?", ns[0].ID)
	} else {
		all, err = stepSpend(ctx, q, "")
	}
	if err != nil {
		return err
	}
	for i := range ns {
		ns[i].Spend = all[ns[i].ID].Total
		if _, ok := all[ns[i].ID]; !ok {
			ns[i].Spend.Cost = models.USD(0) // no step: nothing spent
		}
	}
	return nil
}
