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

// TestFailureByHandDuringTheNight: a failure a person records while the
// night runs puts the task on the running night's skip list, as it would
// a restarted night's.
func TestFailureByHandDuringTheNight(t *testing.T) {
	f := setup(t, twoBuilders)
	f.add("a", 9)
	book := f.add("booklet", 5)
	f.add("c", 1)
	b := f.builder(time.Minute, func(a night.Assignment) night.Attempt {
		if a.Task.Title == "a" {
			// While the builder works on a, a person fails the booklet.
			n, err := f.l.OpenNight(context.Background())
			if err == nil {
				_, err = f.l.FailTask(context.Background(), book.ID, n.ID, "the source is gone", f.clk.Now())
			}
			if err != nil {
				t.Error(err)
			}
		}
		return done(a)
	})
	f.run(b, nil)
	if n := countTask(f.calls, "booklet"); n != 0 {
		t.Errorf("the booklet was attempted %d times after a person failed it tonight", n)
	}
	if n := countTask(f.calls, "c"); n != 1 {
		t.Errorf("task c was attempted %d times, want 1", n)
	}
}
