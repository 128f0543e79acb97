package night_test

import (
	"context"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/night"
)

// TestEscalation: a task whose attempts failed twice with the same model
// goes to the role's next model; at most one failed attempt per task per
// night counts, and a failure recorded by hand counts like any other.
func TestEscalation(t *testing.T) {
	failBook := func(f *fixture, book ledger.Task) night.Builder {
		return f.builder(time.Minute, func(a night.Assignment) night.Attempt {
			if a.Task.ID == book.ID {
				return refusedThenEmpty(a)
			}
			return done(a)
		})
	}
	t.Run("two failed attempts in one night count once", func(t *testing.T) {
		// Charged to the call, the failed task is not skipped: it is tried
		// again and again tonight, and fails each time.
		f := setup(t, twoBuilders+`rules:
  - {failure: empty-answer, role: builder, scope: call, reason: "try the task again tonight"}
`)
		book := f.add("booklet", 9)
		f.add("chart", 1)
		f.p.Roles[ledger.Builder].Ceiling = 3
		f.run(failBook(f, book), nil)
		if n := countTask(f.calls, "booklet"); n < 2 {
			t.Fatalf("the booklet was attempted %d times tonight, want at least 2", n)
		}
		if got, _ := f.l.Task(context.Background(), book.ID); got.Level != 0 {
			t.Errorf("after one night the booklet is at level %d, want 0", got.Level)
		}
	})
	t.Run("a failure recorded by hand counts like any other", func(t *testing.T) {
		f := setup(t, twoBuilders)
		book := f.add("booklet", 9)
		f.add("chart", 1)
		// Seed 003: "we added the two earlier ones by hand".
		if _, err := f.l.FailTask(context.Background(), book.ID, 0, "returned nothing on the 17th", f.clk.Now()); err != nil {
			t.Fatal(err)
		}
		f.run(failBook(f, book), nil)
		if got, _ := f.l.Task(context.Background(), book.ID); got.Level != 1 {
			t.Errorf("after a failure by hand and a failed night the booklet is at level %d, want 1 (b2)", got.Level)
		}
	})
}

func countTask(calls []call, title string) int {
	n := 0
	for _, c := range calls {
		if c.Task == title {
			n++
		}
	}
	return n
}
