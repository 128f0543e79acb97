package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/report"
)

// TestTheMonthsReport is issue 18's acceptance for the report's model: on
// 30 nights run by the simulated clock, with every kind of ending, what
// needs a person, the last night's timeline and the trend series are what
// the ledger holds.
func TestTheMonthsReport(t *testing.T) {
	m := theMonthLedger(t)
	ctx := context.Background()
	r, err := report.Build(ctx, m.l, m.now, report.Config{DB: "month.db"})
	if err != nil {
		t.Fatal(err)
	}
	nights, err := m.l.Nights(ctx)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("the month holds every kind of ending, and a night resumed after a system stop", func(t *testing.T) {
		seen := map[ledger.EndKind]bool{}
		for _, e := range m.ends {
			seen[e] = true
		}
		for _, k := range []ledger.EndKind{ledger.WindowClosed, ledger.CeilingsReached, ledger.CutShort, ledger.OutOfWork, ledger.SystemStopped} {
			if !seen[k] {
				t.Errorf("no night ended %s: %v", k, m.ends)
			}
		}
		if len(m.night[22].Stops) != 1 {
			t.Errorf("night 22's stops: %+v, want the one it was resumed after", m.night[22].Stops)
		}
	})

	t.Run("it covers the last 14 nights by default, the last N with Nights, and the nights since a date with Since", func(t *testing.T) {
		if len(r.Nights) != 14 || r.Nights[0].Name != "2025-10-17" || r.Nights[13].Name != "2025-10-30" || r.Covers != "the last 14 nights" {
			t.Errorf("default: %d nights from %s, covers %q", len(r.Nights), r.Nights[0].Name, r.Covers)
		}
		for _, tt := range []struct {
			cfg   report.Config
			n     int
			first string
		}{
			{report.Config{Nights: 7}, 7, "2025-10-24"},
			{report.Config{Since: firstNight.AddDate(0, 0, -1)}, 30, "2025-10-01"},
			{report.Config{Since: firstNight.AddDate(0, 0, 20), Nights: 3}, 10, "2025-10-21"},
		} {
			got, err := report.Build(ctx, m.l, m.now, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Nights) != tt.n || got.Nights[0].Name != tt.first || len(got.Trend) != tt.n {
				t.Errorf("%+v: %d nights (%d points) from %s, want %d from %s", tt.cfg, len(got.Nights), len(got.Trend), got.Nights[0].Name, tt.n, tt.first)
			}
		}
	})

	t.Run("the trend is the ledger's, night by night: builder steps by outcome, the two early ends apart, tokens, failures by scope", func(t *testing.T) {
		var want []report.Point
		for _, n := range nights[len(nights)-14:] {
			steps, _ := m.l.Steps(ctx, n.ID)
			fs, _ := m.l.Failures(ctx, n.ID)
			p := report.Point{Night: n.Name, Builder: map[report.Outcome]int{}, End: n.End, Reason: n.Reason, Failures: map[ledger.Scope]int{}}
			p.CutShort = n.End == ledger.CutShort || n.End == ledger.SystemStopped || len(n.Stops) > 0
			p.OutOfWork = n.End == ledger.OutOfWork && !p.CutShort
			for _, s := range steps {
				p.Tokens += s.Tokens
				if usd, ok := s.Cost.USD(); ok {
					p.KnownUSD += usd
				} else {
					p.Unpriced++
				}
				if s.Role == ledger.Builder && s.State != ledger.Interrupted && s.State != ledger.Running {
					p.Steps++
					p.Builder[wantOutcome(s, fs)]++
				}
			}
			for _, f := range fs {
				p.Failures[f.Scope]++
			}
			if p.Unpriced == 0 {
				p.Cost = models.USD(p.KnownUSD)
			}
			want = append(want, p)
		}
		// The ledger sums the costs in SQL: the same to a billionth of a
		// dollar, not to the last bit.
		near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
		costs := cmp.Options{cmp.Comparer(near), cmp.Comparer(func(a, b models.Cost) bool {
			x, okA := a.USD()
			y, okB := b.USD()
			return okA == okB && near(x, y)
		})}
		if diff := cmp.Diff(want, r.Trend, costs); diff != "" {
			t.Errorf("trend (-want +got):\n%s", diff)
		}
		// Seed 003's two numbers over the fortnight, as the script made
		// them.
		cut := []string{"2025-10-18", "2025-10-19", "2025-10-22", "2025-10-30"}
		out := []string{"2025-10-23", "2025-10-27", "2025-10-28"}
		if diff := cmp.Diff(cut, r.Across.CutShortNames); diff != "" {
			t.Errorf("cut short (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(out, r.Across.OutOfWorkNames); diff != "" {
			t.Errorf("out of work (-want +got):\n%s", diff)
		}
	})

	t.Run("what needs a person: the parked actions with their commands, the stop not dealt with, the task every model failed, the unverified result, the nights cut short", func(t *testing.T) {
		ids := map[string]int64{}
		tasks, _ := m.l.Tasks(ctx)
		for _, task := range tasks {
			ids[task.Title] = task.ID
		}
		n := r.Needs
		var parked []string
		for _, p := range n.Parked {
			parked = append(parked, fmt.Sprintf("%s %q [%s | %s] %s", p.Status, p.Title, p.Approve, p.Deny, p.Then))
		}
		mp := ids["a map of the old town"]
		wantParked := []string{
			fmt.Sprintf(`waiting "a map of the old town" [nightshift task approve %d --db month.db | nightshift task deny %d --db month.db] `, mp, mp),
			`approved-not-run "a list of night trains" [ | ] `,
			`expired "a fetched book" [ | ] nobody answered by the deadline: the task failed`,
		}
		if diff := cmp.Diff(wantParked, parked); diff != "" {
			t.Errorf("parked (-want +got):\n%s", diff)
		}
		if w := n.Parked[0]; !w.Deadline.After(m.now) || !strings.Contains(w.Action, "curl -O https://example.org/a-map-of-the-old-town") {
			t.Errorf("the waiting action: %+v", w)
		}
		if len(n.Stops) != 1 || n.Stops[0].Night != "2025-10-30" || n.Stops[0].Rule != "auth" || !strings.Contains(n.Stops[0].Cause, "401") {
			t.Errorf("stops %+v; want night 2025-10-30's auth failure", n.Stops)
		}
		if len(n.FailedEveryModel) != 1 || n.FailedEveryModel[0].Title != "an atlas" || !slices.Equal(n.FailedEveryModel[0].Models, []string{"b1", "b2"}) {
			t.Errorf("failed on every model: %+v; want the atlas, on b1 and b2", n.FailedEveryModel)
		}
		if len(n.Unverified) != 1 || n.Unverified[0].Title != "a glossary" || n.Unverified[0].Night != "2025-10-30" ||
			!slices.Equal(n.Unverified[0].Checks, []string{"min-chars"}) || n.Unverified[0].Answer != "A glossary of 12 sailing terms." {
			t.Errorf("unverified: %+v; want the glossary's latest attempt", n.Unverified)
		}
		var cut []string
		for _, c := range n.CutShort {
			cut = append(cut, fmt.Sprintf("%s %s resumed=%v", c.Night, c.End, c.Resumed))
		}
		wantCut := []string{"2025-10-22 system-stopped resumed=true", "2025-10-19 cut-short resumed=false", "2025-10-18 cut-short resumed=false"}
		if diff := cmp.Diff(wantCut, cut); diff != "" {
			t.Errorf("nights cut short (-want +got):\n%s", diff)
		}
		if n.Count() != 9 || n.Empty() {
			t.Errorf("count %d, empty %v; want 9", n.Count(), n.Empty())
		}
	})

	t.Run("the last night's timeline: one row per worker, every step a mark with its outcome, the ceilings, when and why it ended", func(t *testing.T) {
		last := nights[len(nights)-1]
		tl := r.Nights[len(r.Nights)-1].Timeline
		steps, _ := m.l.Steps(ctx, last.ID)
		fs, _ := m.l.Failures(ctx, last.ID)
		var rows []string
		for _, row := range tl.Rows {
			rows = append(rows, fmt.Sprintf("%s/%s %d", row.Role, row.Worker, len(row.Marks)))
		}
		count := map[string]int{}
		for _, s := range steps {
			count[fmt.Sprintf("%s/%s", s.Role, s.Worker)]++
		}
		var want []string
		for _, w := range []string{"proposer/idea", "judge/judge", "builder/b1", "builder/b2"} {
			want = append(want, fmt.Sprintf("%s %d", w, count[w]))
		}
		if diff := cmp.Diff(want, rows); diff != "" {
			t.Errorf("rows (-want +got):\n%s", diff)
		}
		marks := map[int64]report.Mark{}
		for _, row := range tl.Rows {
			for _, mk := range row.Marks {
				marks[mk.Step] = mk
			}
		}
		seen := map[report.Outcome]bool{}
		for _, s := range steps {
			mk, ok := marks[s.ID]
			if !ok {
				t.Errorf("step %d has no mark", s.ID)
				continue
			}
			if o := wantOutcome(s, fs); mk.Outcome != o || !mk.Start.Equal(s.StartedAt) || !mk.End.Equal(s.EndedAt) {
				t.Errorf("step %d (%s %s): mark %s %s–%s, want %s %s–%s", s.ID, s.State, s.Outcome, mk.Outcome, mk.Start, mk.End, o, s.StartedAt, s.EndedAt)
			}
			if mk.Start.Before(tl.WindowStart) || mk.End.After(tl.WindowEnd) {
				t.Errorf("mark %+v is outside the window", mk)
			}
			seen[mk.Outcome] = true
		}
		for _, o := range []report.Outcome{report.Done, report.Skipped, report.Failed, report.Parked, report.Interrupted} {
			if !seen[o] {
				t.Errorf("the last night has no %s mark", o)
			}
		}
		for _, mk := range marks {
			if mk.Outcome == report.Failed && !strings.Contains(mk.Detail, "system auth: the provider refused the credentials") {
				t.Errorf("the failed mark says %q; want the auth failure that stopped the night", mk.Detail)
			}
			if mk.Outcome == report.Parked && mk.Title != "a map of the old town" && mk.Title != "a list of night trains" {
				t.Errorf("a parked mark on %q", mk.Title)
			}
		}
		took := map[ledger.Role]int{}
		for _, s := range steps {
			if s.State != ledger.Interrupted {
				took[s.Role]++
			}
		}
		wantCeilings := []report.Ceiling{{Role: ledger.Proposer, Ceiling: 2, Took: took[ledger.Proposer]},
			{Role: ledger.Judge, Took: took[ledger.Judge]}, {Role: ledger.Builder, Ceiling: 6, Took: took[ledger.Builder]}}
		if diff := cmp.Diff(wantCeilings, tl.Ceilings); diff != "" {
			t.Errorf("ceilings (-want +got):\n%s", diff)
		}
		if tl.End != ledger.SystemStopped || !tl.EndedAt.Equal(last.EndedAt) || tl.Reason != last.Reason || !tl.WindowStart.Equal(last.WindowStart) {
			t.Errorf("the timeline ends %s at %s (%s); the ledger %s at %s", tl.End, tl.EndedAt, tl.Reason, last.End, last.EndedAt)
		}
	})

	t.Run("what needs a person comes first in the text and in the JSON", func(t *testing.T) {
		var text, js bytes.Buffer
		if err := r.Text(&text); err != nil {
			t.Fatal(err)
		}
		if err := r.JSON(&js); err != nil {
			t.Fatal(err)
		}
		s := text.String()
		needs, night := strings.Index(s, "Needs a person (9):"), strings.Index(s, "Night 2025-10-17")
		if needs < 0 || night < needs {
			t.Errorf("the text does not start with what needs a person:\n%s", s)
		}
		for _, want := range []string{
			fmt.Sprintf("nightshift task approve %d --db month.db   or   nightshift task deny %d --db month.db", r.Needs.Parked[0].Task, r.Needs.Parked[0].Task),
			"night 2025-10-30 stopped at 2025-10-31 02:48 by a system-scope failure (auth)",
			`"an atlas": builder b1, b2`, `"a glossary": night 2025-10-30, b1, failed min-chars`,
			"Night 2025-10-30 at a glance", "builder/b1     ....s...P...P...!...#...X...|                     6",
		} {
			if !strings.Contains(s, want) {
				t.Errorf("the text lacks %q:\n%s", want, s)
			}
		}
		// Every night says its cost; the 26th's is unknown (its builder
		// had no price), and so is the fortnight's, with the known part.
		last := r.Trend[len(r.Trend)-1]
		for _, want := range []string{
			fmt.Sprintf("%d tokens; cost $%.4f\n", last.Tokens, last.KnownUSD),
			fmt.Sprintf("Spent: %d tokens, cost unknown (at least $%.4f; %d step(s) without a price", r.Across.Tokens, r.Across.Spend.KnownUSD, r.Across.Spend.Unpriced),
		} {
			if !strings.Contains(s, want) {
				t.Errorf("the text lacks %q:\n%s", want, s)
			}
		}
		if row := regexp.MustCompile(`(?m)^  2025-10-26 .*$`).FindString(s); !strings.Contains(row, "≥$") {
			t.Errorf("the 26th's row does not say its cost is unknown: %q", row)
		}
		j := js.String()
		if i, k := strings.Index(j, `"needs_a_person"`), strings.Index(j, `"nights"`); i < 0 || k < i {
			t.Errorf("the JSON does not put needs_a_person before the nights")
		}
		var back report.Report
		if err := json.Unmarshal(js.Bytes(), &back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(r.Needs, back.Needs); diff != "" {
			t.Errorf("needs after a JSON round trip (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(r.Trend, back.Trend); diff != "" {
			t.Errorf("trend after a JSON round trip (-want +got):\n%s", diff)
		}
	})
}

// wantOutcome is how the timeline should mark a step, read from the
// ledger: a failed step charged no higher than its task is skipped.
func wantOutcome(s ledger.Step, fs []ledger.Failure) report.Outcome {
	switch s.State {
	case ledger.Finished:
		return report.Done
	case ledger.StepParked:
		return report.Parked
	case ledger.Interrupted:
		return report.Interrupted
	case ledger.Running:
		return report.Running
	}
	if s.Task == 0 {
		return report.Failed
	}
	for _, f := range fs {
		if f.Step == s.ID && f.Scope != ledger.TaskScope && f.Scope != ledger.CallScope {
			return report.Failed
		}
	}
	return report.Skipped
}

// TestNothingNeedsAPersonAndItSaysSo: a night that ran to its ceiling with
// nothing parked, stopped or failed needs nobody, and every form says so.
func TestNothingNeedsAPersonAndItSaysSo(t *testing.T) {
	ctx := context.Background()
	l := setupEmpty(t)
	task, _ := l.AddTask(ctx, ledger.NewTask{Title: "chart"}, t0)
	n, _ := l.StartNight(ctx, "2025-10-19", t0, t0.Add(8*time.Hour), t0)
	play(t, l, n, ledger.End{Kind: ledger.CeilingsReached, Reason: "the builder reached its ceiling of 1 step", At: t0.Add(time.Hour)},
		step{task, ledger.Result{State: ledger.Finished, Outcome: "done", TaskState: ledger.Done, Tokens: 10, At: t0.Add(time.Hour)}})
	r, err := report.Build(ctx, l, t0.Add(9*time.Hour), report.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Needs.Empty() {
		t.Errorf("needs %+v; want nothing", r.Needs)
	}
	var text, js, page bytes.Buffer
	if err := r.Text(&text); err != nil || !strings.HasPrefix(strings.SplitN(text.String(), "\n\n", 2)[1], "Nothing needs a person.") {
		t.Errorf("text (%v):\n%s", err, text.String())
	}
	if err := r.JSON(&js); err != nil || !strings.Contains(js.String(), `"needs_a_person": {
    "parked": [],`) {
		t.Errorf("JSON (%v) lacks an empty needs_a_person:\n%s", err, js.String())
	}
	if err := r.HTML(&page); err != nil || !strings.Contains(page.String(), "Nothing needs a person.") {
		t.Errorf("page (%v) does not say nothing needs a person", err)
	}
}
