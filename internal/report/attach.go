package report

import (
	"slices"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
)

// attached are what a person recorded between nights, by the night that
// came before: failures recorded by hand while no night was open, and
// the tasks given up (during a night: that night's).
type attached struct {
	failures map[int64][]ledger.Failure
	drops    map[int64][]ledger.Drop
}

// attach gives each failure recorded between nights, and each drop, to
// the night it came after (the latest to start before it; before the
// first night, the first), when the report covers that night.
func attach(all, covered []ledger.Night, h *history) attached {
	out := attached{failures: map[int64][]ledger.Failure{}, drops: map[int64][]ledger.Drop{}}
	isCovered := map[int64]bool{}
	for _, n := range covered {
		isCovered[n.ID] = true
	}
	before := func(at time.Time) int64 {
		for _, n := range slices.Backward(all) {
			if !n.StartedAt.After(at) {
				return n.ID
			}
		}
		if len(all) > 0 {
			return all[0].ID
		}
		return 0
	}
	for _, f := range h.manual {
		if f.Night != 0 {
			continue
		}
		if id := before(f.At); isCovered[id] {
			out.failures[id] = append(out.failures[id], f)
		}
	}
	var drops []ledger.Drop
	for _, d := range h.drops {
		drops = append(drops, d)
	}
	slices.SortFunc(drops, func(a, b ledger.Drop) int { return int(a.ID - b.ID) })
	for _, d := range drops {
		id := d.Night
		if id == 0 {
			id = before(d.At)
		}
		if isCovered[id] {
			out.drops[id] = append(out.drops[id], d)
		}
	}
	return out
}
