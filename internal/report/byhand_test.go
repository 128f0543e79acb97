package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/internal/report"
	"github.com/nightshift-dev/nightshift/ledger"
)

// TestAFailureByHandBetweenNightsCounts is a regression test (issue 30):
// `nightshift task fail` between nights records a failure of no night,
// which the docs say counts like any other, and the report left it out
// of the text, the JSON and the page. It counts with the night before it
// (failures by scope across nights, the trend's point, the failures
// chart's row), and as the escalation rule counts it: a task that failed
// on b1, then on b2 in one night and by hand once, failed on every model.
func TestAFailureByHandBetweenNightsCounts(t *testing.T) {
	ctx := context.Background()
	l := setupEmpty(t)
	atlas, _ := l.AddTask(ctx, ledger.NewTask{Title: "an atlas"}, t0)
	setup := ledger.Setup{Roles: map[ledger.Role]ledger.RoleSetup{ledger.Builder: {Models: []string{"b1", "b2"}, Ceiling: 14}}}
	failed := func(escalate bool, at time.Time) step {
		return step{atlas, ledger.Result{State: ledger.StepFailed, Outcome: "unverified", At: at, Escalate: escalate,
			Failures: []ledger.Failure{{Scope: ledger.TaskScope, Rule: "failed-step", Reason: "a failed step costs its task the night"}}}}
	}
	n1, _ := l.StartNight(ctx, "2025-10-19", t0, t0.Add(8*time.Hour), t0)
	l.SetSetup(ctx, n1.ID, setup, t0) //nolint:errcheck // read back by the report
	playAs(t, l, n1, "b1", ledger.End{Kind: ledger.OutOfWork, Reason: "nothing takeable", At: t0.Add(time.Hour)}, failed(true, t0.Add(time.Hour)))
	d2 := t0.Add(24 * time.Hour)
	n2, _ := l.StartNight(ctx, "2025-10-20", d2, d2.Add(8*time.Hour), d2)
	l.SetSetup(ctx, n2.ID, setup, d2) //nolint:errcheck // read back by the report
	playAs(t, l, n2, "b2", ledger.End{Kind: ledger.OutOfWork, Reason: "nothing takeable", At: d2.Add(time.Hour)}, failed(false, d2.Add(time.Hour)))
	if got, _ := l.Task(ctx, atlas.ID); got.Level != 1 {
		t.Fatalf("the atlas is at level %d, want 1 (b2)", got.Level)
	}
	// In the morning, no night open, a person records the atlas failed.
	byHand, err := l.FailTask(ctx, atlas.ID, 0, "the projection is wrong", d2.Add(10*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(ctx, l, d2.Add(11*time.Hour), report.Config{DB: "n.db"})
	if err != nil {
		t.Fatal(err)
	}

	if len(r.Needs.FailedEveryModel) != 1 || r.Needs.FailedEveryModel[0].ByHand != 1 || r.Needs.FailedEveryModel[0].Attempts != 2 ||
		!strings.HasPrefix(r.Needs.FailedEveryModel[0].Last, "by hand: the projection is wrong") {
		t.Errorf("failed on every model: %+v; want the atlas (b1 and b2 by attempts, b2 a second time by hand)", r.Needs.FailedEveryModel)
	}
	last := r.Nights[1]
	if len(last.ByHandAfter) != 1 || last.ByHandAfter[0].ID != byHand.ID || r.Trend[1].ByHandAfter != 1 || r.Across.ByHand != 1 ||
		r.Across.Failures[ledger.TaskScope] != 3 || r.Trend[0].ByHandAfter != 0 {
		t.Errorf("the failure by hand: the 20th's %+v, trend %d, across %d by hand and %v; want it counted after the 20th",
			last.ByHandAfter, r.Trend[1].ByHandAfter, r.Across.ByHand, r.Across.Failures)
	}

	var text, js, page bytes.Buffer
	if err := r.Text(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  recorded by hand after the night (1), counted with it:\n    2025-10-21 08:00 task   by-hand        task 1 by hand: the projection is wrong\n",
		"Failures: 3 (3 task-scope; 1 recorded by hand)", "2 failed attempts and 1 by hand", "       nightshift task drop 1 --db n.db\n",
		"1 task-scope + 1 by hand after"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, text.String())
		}
	}
	if err := r.JSON(&js); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Nights []struct {
			ByHandAfter []ledger.Failure `json:"failures_by_hand_after"`
		} `json:"nights"`
		Across struct {
			ByHand   int            `json:"failures_by_hand"`
			Failures map[string]int `json:"failures_by_scope"`
		} `json:"across"`
	}
	if err := json.Unmarshal(js.Bytes(), &raw); err != nil || len(raw.Nights[1].ByHandAfter) != 1 || raw.Across.ByHand != 1 || raw.Across.Failures["task"] != 3 {
		t.Errorf("the JSON (%v): %+v", err, raw)
	}
	if err := r.HTML(&page); err != nil {
		t.Fatal(err)
	}
	samePage(t, r)
	for _, want := range []string{`<h3>Recorded by hand after the night (1)</h3>`, `<td>the projection is wrong</td>`,
		`<g class="gridrow" data-row="by hand, after" data-total="1">`} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// playAs is play with the builder's worker named.
func playAs(t *testing.T, l *ledger.Ledger, n ledger.Night, worker string, end ledger.End, todo ...step) {
	t.Helper()
	w, err := l.Work(context.Background(), ledger.WorkConfig{Night: n.ID, Handler: &steps{todo: todo, end: end, worker: worker}})
	if err != nil {
		t.Fatal(err)
	}
	<-w.Ended()
	if err := w.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}
