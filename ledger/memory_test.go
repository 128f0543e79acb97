package ledger_test

import (
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
)

// TestTaskNotesAreKeptWithTheTask runs on every store: notes are kept
// with their task, in order, and another task's are not mixed in.
func TestTaskNotesAreKeptWithTheTask(t *testing.T) {
	for name, dsn := range stores(t) {
		t.Run(name, func(t *testing.T) {
			l := open(t, dsn(t))
			book := addTask(t, l, "booklet", score(9))
			chart := addTask(t, l, "chart", score(1))
			for i, text := range []string{"the text is on Gutenberg, #1342", "its certificate fails; use the mirror"} {
				if _, err := l.AddTaskNote(ctx(), ledger.TaskNote{Task: book.ID, Night: 1, Step: 3, Worker: "b1", Text: text, At: t0.Add(time.Duration(i) * time.Minute)}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := l.AddTaskNote(ctx(), ledger.TaskNote{Task: chart.ID, Text: "other", At: t0}); err != nil {
				t.Fatal(err)
			}
			notes, err := l.TaskNotes(ctx(), book.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(notes) != 2 || notes[0].Text != "the text is on Gutenberg, #1342" || notes[1].Worker != "b1" ||
				notes[1].Step != 3 || !notes[1].At.Equal(t0.Add(time.Minute)) {
				t.Fatalf("notes %+v", notes)
			}
		})
	}
}
