package report

import "github.com/nightshift-dev/nightshift/ledger"

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
	// Tokens is what the night spent, every role's steps together.
	Tokens int64 `json:"tokens"`
	// Failures counts the night's failures per scope.
	Failures map[ledger.Scope]int `json:"failures"`
}

// trend makes one point per night.
func trend(nights []Night) []Point {
	out := make([]Point, 0, len(nights))
	for _, n := range nights {
		p := Point{Night: n.Name, Steps: n.Finished[ledger.Builder], Builder: map[Outcome]int{},
			End: n.End, Reason: n.Reason, CutShort: n.CutShort, OutOfWork: n.OutOfWork, Tokens: n.Tokens,
			Failures: map[ledger.Scope]int{}}
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
