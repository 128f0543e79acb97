package report

import (
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm/models"
)

// Point is one night of the trend: what the page charts across nights.
type Point struct {
	Night string `json:"night"`
	// Steps is the builder steps finished: seed 003's first number.
	// Builder splits them by how they ended (done, skipped, failed,
	// parked).
	Steps   int             `json:"builder_steps"`
	Builder map[Outcome]int `json:"builder"`
	// End is how the night ended; CutShort and OutOfWork are seed 003's
	// second number, kept apart.
	End       ledger.EndKind `json:"end,omitempty"`
	Reason    string         `json:"reason,omitempty"`
	CutShort  bool           `json:"cut_short"`
	OutOfWork bool           `json:"out_of_work"`
	// Tokens is what the night spent, every role's steps together, and
	// Cost what that cost by the model table: unknown (JSON null) when a
	// step's cost is, with KnownUSD the known part and Unpriced the steps
	// without a price.
	Tokens   int64       `json:"tokens"`
	Cost     models.Cost `json:"cost_usd"`
	KnownUSD float64     `json:"known_cost_usd"`
	Unpriced int         `json:"unpriced_steps,omitempty"`
	// Failures counts the night's failures per scope; ByHandAfter the
	// failures a person recorded after it, between nights (counted in
	// no scope of the night's own).
	Failures    map[ledger.Scope]int `json:"failures"`
	ByHandAfter int                  `json:"failures_by_hand_after"`
	// EndedWaiting says the window closed while the night sat idle
	// waiting for a person; Silent counts its silent failures and
	// Dropped the tasks a person gave up in it or after it.
	EndedWaiting bool `json:"ended_waiting"`
	Silent       int  `json:"silent_failures"`
	Dropped      int  `json:"dropped"`
}

// trend makes one point per night.
func trend(nights []Night) []Point {
	out := make([]Point, 0, len(nights))
	for _, n := range nights {
		p := Point{Night: n.Name, Steps: n.Finished[ledger.Builder], Builder: map[Outcome]int{},
			End: n.End, Reason: n.Reason, CutShort: n.CutShort, OutOfWork: n.OutOfWork, Tokens: n.Tokens,
			Cost: cost(n.Spend), KnownUSD: n.Spend.KnownUSD, Unpriced: n.Spend.Unpriced,
			Failures: map[ledger.Scope]int{}, ByHandAfter: len(n.ByHandAfter), EndedWaiting: n.EndedWaiting,
			Silent: len(n.Silent), Dropped: len(n.Dropped)}
		for _, r := range n.Timeline.Rows {
			if r.Role != ledger.Builder {
				continue
			}
			for _, m := range r.Marks {
				if m.Outcome != Interrupted && m.Outcome != Running {
					p.Builder[m.Outcome]++
				}
			}
		}
		for s, c := range n.ByScope {
			p.Failures[s] = c
		}
		out = append(out, p)
	}
	return out
}

// cost is a spend's cost, known when every step in it had a price: a
// night without steps cost $0, not an unknown sum.
func cost(sp ledger.Spend) models.Cost {
	if sp.Unpriced == 0 {
		return models.USD(sp.KnownUSD)
	}
	return models.Unknown
}
