package night

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
)

// worker names a role with one of its models.
type worker struct {
	role  ledger.Role
	model string
}

func (w worker) String() string { return string(w.role) + "/" + w.model }

// tonight is the night's shared state as one transaction reads it from
// the ledger: the scheduler keeps none of it between steps, so every
// process sharing a night decides on the same state.
type tonight struct {
	night ledger.Night
	// out holds the workers that sit out the rest of the night, with why.
	out map[worker]string
	// waiting holds the workers charged waiting-for-provider tonight,
	// with the time of the latest charge: they sit out while their
	// endpoint's breaker is open (provider.go), not the night.
	waiting map[worker]time.Time
	// skip is tonight's skip list of tasks.
	skip map[int64]string
	// failedOn holds the tasks each worker failed a step on tonight
	// (Kind.failedStep, never a call without a task).
	failedOn map[worker]map[int64]bool
	// tokens spent tonight per worker, and in all.
	tokens map[worker]int64
	total  int64
	// usd is what tonight's steps cost, as far as it is known; unpriced
	// counts the steps whose cost is not.
	usd      float64
	unpriced int
	// stop is set by a night- or system-scope failure since the night was
	// last resumed.
	stop    ledger.Scope
	stopWhy string
}

// load reads tonight's state in tx: the spend, and the failures unless
// the caller needs none of what they say (a step that did not fail
// charges nothing).
func (s *scheduler) load(ctx context.Context, tx *ledger.Tx, failures bool) (*tonight, error) {
	n := tx.Night()
	st := &tonight{night: n, out: map[worker]string{}, waiting: map[worker]time.Time{}, skip: map[int64]string{}, failedOn: map[worker]map[int64]bool{},
		tokens: map[worker]int64{}}
	if failures {
		fs, err := tx.Failures(ctx)
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			st.apply(f, f.ID > n.StopMark())
		}
	}
	sp, err := tx.Spend(ctx)
	if err != nil {
		return nil, err
	}
	for k, v := range sp.ByWorker {
		st.tokens[worker{k.Role, k.Worker}] += v.Tokens
	}
	st.total, st.usd, st.unpriced = sp.Total.Tokens, sp.Total.KnownUSD, sp.Total.Unpriced
	return st, nil
}

// apply takes one failure into account; stops only count when current
// (recorded after the night's last resumption).
func (st *tonight) apply(f ledger.Failure, current bool) {
	switch f.Scope {
	case ledger.TaskScope:
		if f.Task != 0 {
			st.skip[f.Task] = f.Reason
		}
	case ledger.WorkerScope:
		if Kind(f.Rule) == WaitingForProvider {
			w := worker{f.Role, f.Worker}
			if f.At.After(st.waiting[w]) {
				st.waiting[w] = f.At
			}
			break
		}
		st.out[worker{f.Role, f.Worker}] = f.Reason
	case ledger.NightScope, ledger.SystemScope:
		if current && st.stop != ledger.SystemScope {
			st.stop, st.stopWhy = f.Scope, f.Reason
		}
	}
	if Kind(f.Rule).failedStep() && f.Task != 0 && f.Worker != "" && !f.Manual {
		w := worker{f.Role, f.Worker}
		if st.failedOn[w] == nil {
			st.failedOn[w] = map[int64]bool{}
		}
		st.failedOn[w][f.Task] = true
	}
}

// otherTask returns a task other than task that w failed a step on
// tonight, or 0.
func (st *tonight) otherTask(w worker, task int64) int64 {
	for _, t := range slices.Sorted(maps.Keys(st.failedOn[w])) {
		if t != task {
			return t
		}
	}
	return 0
}
