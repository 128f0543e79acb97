package budget

import (
	"context"
	"sync"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
)

// Limits are a run's budgets. A zero field is no limit.
type Limits struct {
	// USD is the most the run may spend, in US dollars, priced by the
	// model table.
	USD float64
	// Tokens is the most input plus output tokens the run may use.
	Tokens int64
}

// None reports whether l limits nothing.
func (l Limits) None() bool { return l.USD <= 0 && l.Tokens <= 0 }

// Spend is what a run has used so far.
type Spend struct {
	Usage llm.Usage `json:"usage"`
	// Cost is Unknown as soon as one call could not be priced: a total
	// with an unknown part is not known either.
	Cost models.Cost `json:"cost_usd"`
}

// Pricer prices one call's usage; nil prices every call Unknown.
type Pricer func(llm.Usage) models.Cost

// Meter counts a run's spend across all its models and keeps it under
// its limits. It is safe for concurrent use.
type Meter struct {
	mu     sync.Mutex
	limits Limits
	spent  Spend
}

// NewMeter returns a meter with limits l that has already spent spent (a
// resumed run's spend; the zero Spend for a new run).
func NewMeter(l Limits, spent Spend) *Meter {
	if spent.Usage == (llm.Usage{}) && !spent.Cost.Known() {
		spent.Cost = models.USD(0)
	}
	return &Meter{limits: l, spent: spent}
}

// Limits returns the meter's limits.
func (m *Meter) Limits() Limits { return m.limits }

// SetLimits replaces the limits, as a resumed run given new ones does.
func (m *Meter) SetLimits(l Limits) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.limits = l
}

// Spent returns what has been spent so far.
func (m *Meter) Spent() Spend {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.spent
}

// Add counts one call's usage and cost.
func (m *Meter) Add(u llm.Usage, c models.Cost) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.spent.Usage = m.spent.Usage.Add(u)
	m.spent.Cost = m.spent.Cost.Add(c)
}

// Check returns an *ExceededError when a call estimated to use est, at
// cost estCost, would cross a limit, or when a limit is reached already;
// nil when the call may be made.
func (m *Meter) Check(est llm.Usage, estCost models.Cost) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, s := m.limits, m.spent
	if l.Tokens > 0 {
		spent, next := s.Usage.Total(), est.Total()
		if spent >= l.Tokens || spent+next > l.Tokens {
			return &ExceededError{Limit: Tokens, Max: float64(l.Tokens), Spent: float64(spent), Next: float64(next)}
		}
	}
	if l.USD > 0 {
		spent, ok := s.Cost.USD()
		next, nextOK := estCost.USD()
		switch {
		case !ok || !nextOK:
			// A limit in dollars cannot be kept with a cost nobody knows:
			// stopping is the only side that cannot overspend.
			return &ExceededError{Limit: USD, Max: l.USD, Spent: spent, Unknown: true}
		case spent >= l.USD || spent+next > l.USD:
			return &ExceededError{Limit: USD, Max: l.USD, Spent: spent, Next: next}
		}
	}
	return nil
}

// Model returns mod behind the meter: each Generate is first checked
// against the limits with an estimate of its usage (Estimator), refused
// with an *ExceededError when it would cross one, and counted when it
// returns. price prices its calls.
func (m *Meter) Model(mod llm.Model, price Pricer) llm.Model {
	return &metered{m: m, next: mod, price: price}
}

// metered is one model of a run behind its meter, with its own estimate:
// the worker's and the judge's requests differ in size and shape.
type metered struct {
	m     *Meter
	next  llm.Model
	price Pricer

	mu  sync.Mutex
	est Estimator
}

var _ llm.Model = (*metered)(nil)

func (w *metered) cost(u llm.Usage) models.Cost {
	if w.price == nil {
		return models.Unknown
	}
	return w.price(u)
}

// Generate checks, calls and counts.
func (w *metered) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	// The request's characters are counted once, for the estimate and
	// for the observation: the count walks the whole conversation.
	chars := req.Chars()
	w.mu.Lock()
	est := w.est.EstimateChars(chars)
	w.mu.Unlock()
	if err := w.m.Check(est, w.cost(est)); err != nil {
		return nil, err
	}
	resp, err := w.next.Generate(ctx, req)
	if err != nil {
		return resp, err
	}
	w.mu.Lock()
	w.est.ObserveChars(chars, resp.Usage)
	w.mu.Unlock()
	w.m.Add(resp.Usage, w.cost(resp.Usage))
	return resp, nil
}
