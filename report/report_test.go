package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/report"
)

var t0 = time.Date(2025, 10, 19, 22, 0, 0, 0, time.UTC)

// setup records three nights: the 19th ended early after the booklet failed
// and a fetch was parked; the 21st reached the builder's ceiling, and a
// person approved the map's parked command, which has not run yet; the
// 22nd stopped at once on a system-scope failure.
func setup(t *testing.T) *ledger.Ledger {
	t.Helper()
	ctx := context.Background()
	l, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "r.db"), ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(ctx) }) //nolint:errcheck // test cleanup
	book, _ := l.AddTask(ctx, ledger.NewTask{Title: "booklet"}, t0)
	fetch, _ := l.AddTask(ctx, ledger.NewTask{Title: "fetch the book"}, t0)
	chart, _ := l.AddTask(ctx, ledger.NewTask{Title: "chart"}, t0)
	town, _ := l.AddTask(ctx, ledger.NewTask{Title: "map of the old town"}, t0)
	step := func(n ledger.Night, task ledger.Task, res ledger.Result) {
		t.Helper()
		if _, err := l.RunStep(ctx, ledger.Claim{Night: n.ID, Role: ledger.Builder, Worker: "b1", Task: task.ID, At: res.At},
			func(context.Context, ledger.Step) ledger.Result { return res }); err != nil {
			t.Fatal(err)
		}
	}
	n1, _ := l.StartNight(ctx, "2025-10-19", t0, t0.Add(8*time.Hour), t0)
	step(n1, book, ledger.Result{State: ledger.StepFailed, Outcome: "unverified", Checks: []string{"not-empty"}, At: t0.Add(time.Hour),
		Failures: []ledger.Failure{{Scope: ledger.TaskScope, Rule: "empty-answer", Reason: "an empty answer is a failed step"}}})
	step(n1, fetch, ledger.Result{State: ledger.StepParked, Outcome: "parked", At: t0.Add(2 * time.Hour),
		Park: &ledger.ParkedAction{Action: `fetch {"url":"x"}`, Deadline: t0.Add(4 * time.Hour)}})
	l.EndNight(ctx, n1.ID, ledger.EndedEarly, "no worker can do anything useful", t0.Add(6*time.Hour)) //nolint:errcheck // checked by the report
	d2 := t0.Add(48 * time.Hour)
	n2, _ := l.StartNight(ctx, "2025-10-21", d2, d2.Add(8*time.Hour), d2)
	step(n2, chart, ledger.Result{State: ledger.Finished, Outcome: "done", TaskState: ledger.Done, Tokens: 300, At: d2.Add(time.Hour)})
	step(n2, town, ledger.Result{State: ledger.StepParked, Outcome: "parked", At: d2.Add(2 * time.Hour),
		Park: &ledger.ParkedAction{Action: `run_command {"command":"curl -O https://example.org/town.svg"}`, Deadline: d2.Add(30 * time.Hour)}})
	if _, err := l.Decide(ctx, town.ID, ledger.Approved, d2.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	l.EndNight(ctx, n2.ID, ledger.CeilingsReached, "the builder reached its ceiling of 14 steps", d2.Add(8*time.Hour)) //nolint:errcheck // checked by the report
	d3 := d2.Add(24 * time.Hour)
	n3, _ := l.StartNight(ctx, "2025-10-22", d3, d3.Add(8*time.Hour), d3)
	l.EndNight(ctx, n3.ID, ledger.SystemStopped, "stopped until a person acts: the provider refused the credentials", d3) //nolint:errcheck // checked by the report
	return l
}

func TestReport(t *testing.T) {
	l := setup(t)
	// The morning after the 22nd began: the map was approved 48h ago.
	r, err := report.Build(context.Background(), l, t0.Add(96*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("across nights it counts builder steps per night and nights that ended early, a system stop included", func(t *testing.T) {
		want := report.Across{Nights: 3, BuilderSteps: []report.Count{{"2025-10-19", 2}, {"2025-10-21", 2}, {"2025-10-22", 0}},
			EndedEarly: 2, EarlyNames: []string{"2025-10-19", "2025-10-22"}}
		if diff := cmp.Diff(want, r.Across); diff != "" {
			t.Errorf("across (-want +got):\n%s", diff)
		}
	})
	t.Run("per night it counts tasks, failures by scope and FAILs by check", func(t *testing.T) {
		n := r.Nights[0]
		want := report.TaskCounts{Failed: 1, Skipped: 1, Parked: 1}
		if diff := cmp.Diff(want, n.Tasks); diff != "" {
			t.Errorf("tasks (-want +got):\n%s", diff)
		}
		if n.ByScope[ledger.TaskScope] != 1 || n.FailsByCheck["not-empty"] != 1 {
			t.Errorf("by scope %v, by check %v", n.ByScope, n.FailsByCheck)
		}
	})
	t.Run("a parked task past its deadline is listed first, then an approved task that has not run yet and for how long", func(t *testing.T) {
		var got []string
		for _, a := range r.Attention {
			got = append(got, fmt.Sprintf("%s %s for %s", a.Status, a.Title, a.For))
		}
		want := []string{"past-deadline fetch the book for 94h0m0s", "approved-not-run map of the old town for 45h0m0s"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("attention (-want +got):\n%s", diff)
		}
	})
	t.Run("the text says how each night ended and why", func(t *testing.T) {
		var b bytes.Buffer
		if err := r.Text(&b); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"ended ended-early at 04:00: no worker can do anything useful", "Nights that ended early: 2 (2025-10-19, 2025-10-22)",
			"past-deadline", "approved-not-run  task 4 \"map of the old town\"", "(for 45h0m0s)", "task   empty-answer"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("text lacks %q:\n%s", want, b.String())
			}
		}
	})
	t.Run("the JSON reads back into the same report", func(t *testing.T) {
		var b bytes.Buffer
		if err := r.JSON(&b); err != nil {
			t.Fatal(err)
		}
		var back report.Report
		if err := json.Unmarshal(b.Bytes(), &back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(r.Across, back.Across); diff != "" {
			t.Errorf("across after a JSON round trip (-want +got):\n%s", diff)
		}
	})
	t.Run("the HTML embeds both charts as SVG and loads nothing from elsewhere", func(t *testing.T) {
		var b bytes.Buffer
		if err := r.HTML(&b); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if got := strings.Count(page, "<svg"); got != 2 {
			t.Errorf("the page holds %d SVG charts, want 2", got)
		}
		for _, outside := range []string{"<script", "<link", "<img", "src=", "@import", "url("} {
			if strings.Contains(page, outside) {
				t.Errorf("the page holds %q: it must render offline", outside)
			}
		}
	})
}
