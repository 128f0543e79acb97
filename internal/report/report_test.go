package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/internal/report"
	"github.com/nightshift-dev/nightshift/ledger"
)

var t0 = time.Date(2025, 10, 19, 22, 0, 0, 0, time.UTC)

// setup records three nights: the 19th ran out of work after the booklet
// failed and a fetch was parked; the 21st reached the builder's ceiling,
// and a person approved the map's parked command, which has not run yet;
// the 22nd stopped at once on a system-scope failure (cut short).
func setup(t *testing.T) *ledger.Ledger {
	t.Helper()
	ctx := context.Background()
	l := setupEmpty(t)
	book, _ := l.AddTask(ctx, ledger.NewTask{Title: "booklet"}, t0)
	fetch, _ := l.AddTask(ctx, ledger.NewTask{Title: "fetch the book"}, t0)
	chart, _ := l.AddTask(ctx, ledger.NewTask{Title: "chart"}, t0)
	town, _ := l.AddTask(ctx, ledger.NewTask{Title: "map of the old town"}, t0)
	n1, _ := l.StartNight(ctx, "2025-10-19", t0, t0.Add(8*time.Hour), t0)
	play(t, l, n1, ledger.End{Kind: ledger.OutOfWork, Reason: "no worker can do anything useful: nothing takeable", At: t0.Add(6 * time.Hour)},
		step{book, ledger.Result{State: ledger.StepFailed, Outcome: "unverified", Checks: []string{"not-empty"}, At: t0.Add(time.Hour),
			Failures: []ledger.Failure{{Scope: ledger.TaskScope, Rule: "empty-answer", Reason: "an empty answer is a failed step"}}}},
		step{fetch, ledger.Result{State: ledger.StepParked, Outcome: "parked", At: t0.Add(2 * time.Hour),
			Park: &ledger.ParkedAction{Action: `fetch {"url":"x"}`, Deadline: t0.Add(4 * time.Hour)}}})
	d2 := t0.Add(48 * time.Hour)
	n2, _ := l.StartNight(ctx, "2025-10-21", d2, d2.Add(8*time.Hour), d2)
	play(t, l, n2, ledger.End{Kind: ledger.CeilingsReached, Reason: "the builder reached its ceiling of 14 steps", At: d2.Add(8 * time.Hour)},
		step{chart, ledger.Result{State: ledger.Finished, Outcome: "done", TaskState: ledger.Done, Tokens: 300, At: d2.Add(time.Hour)}},
		step{town, ledger.Result{State: ledger.StepParked, Outcome: "parked", At: d2.Add(2 * time.Hour),
			Park: &ledger.ParkedAction{Action: `run_command {"command":"curl -O https://example.org/town.svg"}`, Deadline: d2.Add(30 * time.Hour)}}})
	if _, err := l.Decide(ctx, town.ID, ledger.Approved, d2.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	d3 := d2.Add(24 * time.Hour)
	n3, _ := l.StartNight(ctx, "2025-10-22", d3, d3.Add(8*time.Hour), d3)
	l.EndNight(ctx, n3.ID, ledger.SystemStopped, "stopped until a person acts: the provider refused the credentials", d3) //nolint:errcheck // checked by the report
	return l
}

// setupEmpty opens a new ledger.
func setupEmpty(t *testing.T) *ledger.Ledger {
	t.Helper()
	ctx := context.Background()
	l, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "r.db"), ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(ctx) }) //nolint:errcheck // test cleanup
	return l
}

// step is a builder step to record: its task and what it did.
type step struct {
	task ledger.Task
	res  ledger.Result
}

// steps is a Handler that claims its steps in order, then ends the night.
type steps struct {
	mu   sync.Mutex
	todo []step
	end  ledger.End
	// worker is the builder's worker: default b1.
	worker string
}

func (h *steps) Decide(context.Context, *ledger.Tx) (ledger.Plan, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.todo) == 0 {
		return ledger.Plan{End: &h.end}, nil
	}
	s := h.todo[0]
	h.todo = h.todo[1:]
	c := ledger.Claim{Role: ledger.Builder, Worker: cmpOr(h.worker, "b1"), Task: s.task.ID, At: s.res.At}
	return ledger.Plan{Claim: &c, Work: func(context.Context, ledger.Step) ledger.SettleFunc {
		return func(context.Context, *ledger.Tx) (ledger.Result, error) { return s.res, nil }
	}}, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// play records night n's steps, as a night working them would, and its end.
func play(t *testing.T, l *ledger.Ledger, n ledger.Night, end ledger.End, todo ...step) {
	t.Helper()
	w, err := l.Work(context.Background(), ledger.WorkConfig{Night: n.ID, Handler: &steps{todo: todo, end: end}})
	if err != nil {
		t.Fatal(err)
	}
	<-w.Ended()
	if err := w.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestReport(t *testing.T) {
	l := setup(t)
	// The morning after the 22nd began: the map was approved 48h ago.
	r, err := report.Build(context.Background(), l, t0.Add(96*time.Hour), report.Config{DB: "night.db"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("across nights it counts builder steps per night, nights cut short and nights out of work apart, and their sum", func(t *testing.T) {
		want := report.Across{Nights: 3, BuilderSteps: []report.Count{{"2025-10-19", 2}, {"2025-10-21", 2}, {"2025-10-22", 0}},
			CutShort: 1, CutShortNames: []string{"2025-10-22"}, OutOfWork: 1, OutOfWorkNames: []string{"2025-10-19"},
			EndedEarly: 2, EarlyNames: []string{"2025-10-19", "2025-10-22"}, Tokens: 300,
			EndedWaitingNames: []string{}, Failures: map[ledger.Scope]int{ledger.TaskScope: 1},
			// The 19th's builder took two tasks and left two waiting: a
			// silent failure, which the 21st's done task settled.
			Silent: 1,
			// The steps were recorded without a cost: the total is unknown,
			// never $0.
			Spend: ledger.Spend{Tokens: 300, Unpriced: 4}}
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
		for _, a := range r.Needs.Parked {
			got = append(got, fmt.Sprintf("%s %s for %s [%s | %s]", a.Status, a.Title, a.For, a.Approve, a.Deny))
		}
		want := []string{"past-deadline fetch the book for 94h0m0s [nightshift task approve 2 --db night.db | nightshift task deny 2 --db night.db]",
			"approved-not-run map of the old town for 45h0m0s [ | ]"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("attention (-want +got):\n%s", diff)
		}
	})
	t.Run("the text says how each night ended and why", func(t *testing.T) {
		var b bytes.Buffer
		if err := r.Text(&b); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"ended out-of-work at 04:00: no worker can do anything useful", "counts as: out of work", "counts as: cut short",
			"Nights cut short: 1 (2025-10-22)", "Nights out of work: 1 (2025-10-19)", "Nights that ended early (both): 2 (2025-10-19, 2025-10-22)",
			"Needs a person (3), the most urgent first:\n  1. system stop · night 2025-10-22 stopped: ",
			"  2. parked · task 2 \"fetch the book\" asks to run fetch {\"url\":\"x\"}\n",
			"deadline 2025-10-20 02:00 (passed 3 days 20 hours ago)",
			"  3. unverified · task 1 \"booklet\": night 2025-10-19, b1, failed not-empty",
			"approved-not-run task 4 \"map of the old town\"", "(1 day 21 hours ago)", "task   empty-answer",
			"       nightshift task approve 2 --db night.db\n       nightshift task deny 2 --db night.db\n",
			"       nightshift task show 1 --db night.db\n"} {
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
		var raw struct {
			Nights []map[string]any `json:"nights"`
			Across map[string]any   `json:"across"`
		}
		if err := json.Unmarshal(b.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		if raw.Across["ended_early"] != 2.0 || raw.Across["cut_short"] != 1.0 || raw.Across["out_of_work"] != 1.0 {
			t.Errorf("across in JSON: %v; want ended_early 2 (the sum), cut_short 1, out_of_work 1", raw.Across)
		}
		var per []string
		for _, n := range raw.Nights {
			per = append(per, fmt.Sprintf("%v cut_short=%v out_of_work=%v", n["name"], n["cut_short"], n["out_of_work"]))
		}
		want := []string{"2025-10-19 cut_short=false out_of_work=true", "2025-10-21 cut_short=false out_of_work=false", "2025-10-22 cut_short=true out_of_work=false"}
		if diff := cmp.Diff(want, per); diff != "" {
			t.Errorf("per night in JSON (-want +got):\n%s", diff)
		}
	})
	t.Run("the page stands on its own: what needs a person, the timeline and the charts, and nothing loaded from elsewhere", func(t *testing.T) {
		var b bytes.Buffer
		if err := r.HTML(&b); err != nil {
			t.Fatal(err)
		}
		samePage(t, r)
		page := b.String()
		for _, want := range []string{`<section id="needs" class="" data-count="3">`, `<section id="timeline" data-night="2025-10-22" data-marks="0">`,
			`<figure id="trend-steps" data-nights="3">`, `<figure id="trend-ends" data-nights="3">`, `<figure id="trend-failures" data-nights="3">`,
			`<g class="col" data-night="2025-10-19" data-value="2">`, `<g class="gridrow" data-row="cut short" data-total="1">`,
			`<g class="gridrow" data-row="out of work" data-total="1">`, `<code class="cmd">nightshift task approve 2 --db night.db</code>`,
			`<h3>Failures (1): 1 task-scope</h3>`, `<figure id="trend-cost" data-nights="3">`,
			"@media print", "prefers-color-scheme: dark"} {
			if !strings.Contains(page, want) {
				t.Errorf("the page lacks %q", want)
			}
		}
		if strings.Index(page, `id="needs"`) > strings.Index(page, `id="timeline"`) {
			t.Errorf("what needs a person is not first")
		}
		// Only the few lines of inline script that open every night's
		// details for print; nothing else comes from anywhere.
		if n := strings.Count(page, "<script"); n != 1 || strings.Contains(page, "<script src") {
			t.Errorf("the page holds %d scripts", n)
		}
		for _, outside := range []string{"<link", "<img", "<iframe", "<object", "<embed", "src=", "href=", "@import", "url(http", "url(/", "url(data"} {
			if strings.Contains(page, outside) {
				t.Errorf("the page holds %q: it must render offline", outside)
			}
		}
	})
}

// TestResumedNightIsCutShort: a night a system stop ended, resumed in its
// window and run to its end, still counts as cut short, and the report
// says when it stopped and when it was resumed; a night an earlier
// version recorded as ended-early is told apart by its reason.
func TestResumedNightIsCutShort(t *testing.T) {
	ctx := context.Background()
	l, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "r.db"), ledger.Config{Owner: "box1"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx) //nolint:errcheck // test cleanup
	n, _ := l.StartNight(ctx, "2025-10-23", t0, t0.Add(8*time.Hour), t0)
	if _, err := l.EndNight(ctx, n.ID, ledger.SystemStopped, "stopped until a person acts: 401", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Resume(ctx, n.ID, t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.EndNight(ctx, n.ID, ledger.WindowClosed, "the window closed at 06:00", t0.Add(8*time.Hour)); err != nil {
		t.Fatal(err)
	}
	old, _ := l.StartNight(ctx, "2025-10-17", t0, t0, t0)
	l.EndNight(ctx, old.ID, ledger.EndedEarly, "no worker can do anything useful: every builder worker is out (b1: quota)", t0) //nolint:errcheck // read below
	r, err := report.Build(ctx, l, t0.Add(9*time.Hour), report.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Across.CutShort != 2 || r.Across.OutOfWork != 0 || r.Across.EndedEarly != 2 {
		t.Errorf("across %+v; want both nights cut short", r.Across)
	}
	var b bytes.Buffer
	if err := r.Text(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"stopped system-stopped at 23:00: stopped until a person acts: 401; resumed at 00:00 by box1",
		"ended window-closed at 06:00", "counts as: cut short"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}
