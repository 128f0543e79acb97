package night_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/night"
)

// TestADroppedTaskIsNeverTakenAgain (issue 30): a task a person dropped
// (`nightshift task drop`) is never taken, does not count as queued or
// parked in why the night ended, and a parked task dropped during the
// night is no answer to wait for: the night ends out of work when the
// rest is done, instead of waiting for a person until the window closes.
func TestADroppedTaskIsNeverTakenAgain(t *testing.T) {
	f := setup(t, twoBuilders)
	ctx := context.Background()
	atlas := f.add("an atlas", 9)
	book := f.add("a fetched book", 8)
	f.add("a clock", 7)
	f.add("a chart", 6)
	if _, err := f.l.DropTask(ctx, atlas.ID, 0, "failed on every model", f.clk.Now()); err != nil {
		t.Fatal(err)
	}
	b := f.builder(20*time.Minute, func(a night.Assignment) night.Attempt {
		switch a.Task.Title {
		case "a fetched book":
			return night.Attempt{Outcome: agent.Parked, Park: &night.ParkRequest{Action: `run_command {"command":"curl -O https://example.org/book"}`}}
		case "a clock":
			// A person reads that the book is parked and gives it up.
			if _, err := f.l.DropTask(ctx, book.ID, a.Night, "not worth a download", f.clk.Now()); err != nil {
				t.Error(err)
			}
		}
		return done(a)
	})
	sum := f.run(b, nil)
	var took []string
	for _, c := range f.calls {
		took = append(took, c.Task)
	}
	if want := []string{"a fetched book", "a clock", "a chart"}; !slices.Equal(took, want) {
		t.Errorf("the builder took %q; want %q (never the dropped atlas)", took, want)
	}
	if sum.Night.End != ledger.OutOfWork || !sum.Night.EndedAt.Equal(dusk.Add(time.Hour)) ||
		!strings.HasSuffix(sum.Night.Reason, "nothing takeable: 0 queued, 0 skipped tonight, 0 parked") {
		t.Errorf("the night ended %s at %s: %s; want out of work at 23:00, the dropped tasks neither queued nor parked",
			sum.Night.End, sum.Night.EndedAt.Format("15:04"), sum.Night.Reason)
	}
	if fs := f.failures(sum.Night); len(fs) != 0 {
		t.Errorf("dropping charged failures: %v", rules(fs))
	}
}
