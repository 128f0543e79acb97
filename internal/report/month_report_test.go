package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/internal/report"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm/models"
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
		if m.ends[27] != ledger.WindowClosed {
			t.Errorf("night 27 ended %s; want window-closed, waiting for a person", m.ends[27])
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
			p := report.Point{Night: n.Name, Builder: map[report.Outcome]int{}, End: n.End, Reason: n.Reason, Failures: map[ledger.Scope]int{},
				// As the script made them: the night that sat idle for a
				// person to its end; the silent failures (the builder
				// that took nothing of what waited on the 18th and the
				// 19th, the judge that lost every call from the 27th);
				// the failure by hand after the 25th, the drop after the
				// 30th.
				EndedWaiting: n.Name == "2025-10-27", Silent: silentNights[n.Name],
				ByHandAfter: b2i(n.Name == "2025-10-25"), Dropped: b2i(n.Name == "2025-10-30")}
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
		out := []string{"2025-10-23", "2025-10-28", "2025-10-29"}
		if diff := cmp.Diff(cut, r.Across.CutShortNames); diff != "" {
			t.Errorf("cut short (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(out, r.Across.OutOfWorkNames); diff != "" {
			t.Errorf("out of work (-want +got):\n%s", diff)
		}
		if !slices.Equal(r.Across.EndedWaitingNames, []string{"2025-10-27"}) {
			t.Errorf("nights that ended waiting for a person: %v; want the 27th", r.Across.EndedWaitingNames)
		}
	})

	t.Run("what needs a person: each item says what broke and what to do, with its commands, the most urgent first, and only what is unresolved counts", func(t *testing.T) {
		ids := map[string]int64{}
		tasks, _ := m.l.Tasks(ctx)
		for _, task := range tasks {
			ids[task.Title] = task.ID
		}
		n := r.Needs
		// The order: the system stop, then what expires first (the map's
		// parked action), then the judge's silent failure, the atlas that
		// failed on every model, the unverified glossary.
		var kinds []string
		for _, it := range n.Items {
			kinds = append(kinds, it.Kind)
		}
		want := []string{report.KindStop, report.KindParked, report.KindSilent, report.KindExhausted, report.KindUnverified}
		if diff := cmp.Diff(want, kinds); diff != "" {
			t.Errorf("items (-want +got):\n%s", diff)
		}
		if n.Total != len(n.Items) || n.Count() != 5 || n.Empty() {
			t.Errorf("count %d (total %d), empty %v; want 5", n.Count(), n.Total, n.Empty())
		}
		mp, atlas, gl := ids["a map of the old town"], ids["an atlas"], ids[glossary]
		wantCommands := [][]string{
			{"nightshift night --pipeline " + m.pipeline + " --db month.db"},
			{fmt.Sprintf("nightshift task approve %d --db month.db", mp), fmt.Sprintf("nightshift task deny %d --db month.db", mp)},
			{},
			{fmt.Sprintf("nightshift task drop %d --db month.db", atlas)},
			{fmt.Sprintf("nightshift task show %d --db month.db", gl)},
		}
		for i, it := range n.Items {
			if i < len(wantCommands) && !slices.Equal(it.Commands, wantCommands[i]) {
				t.Errorf("item %d (%s) commands %q, want %q", i, it.Kind, it.Commands, wantCommands[i])
			}
			if it.What == "" || it.Do == "" {
				t.Errorf("item %d (%s) says what %q, do %q: it must say both", i, it.Kind, it.What, it.Do)
			}
			if regexp.MustCompile(`\d+h\d+m\d+s|\d+m0s`).MatchString(it.When + it.What + it.Do) {
				t.Errorf("item %d writes a Go duration: %q", i, it.When)
			}
		}

		// The 401: the role, the model and the variable of the refused
		// key, and what to type once it is fixed.
		if len(n.Stops) != 1 {
			t.Fatalf("stops %+v; want night 2025-10-30's", n.Stops)
		}
		st := n.Stops[0]
		if st.Night != "2025-10-30" || st.Rule != "auth" || !strings.Contains(st.Cause, "401") || st.Role != ledger.Builder || st.Worker != "b1" ||
			st.Provider != "anthropic" || st.Model != "claude-sonnet-5-5" || st.KeyEnv != "ANTHROPIC_API_KEY" {
			t.Errorf("the stop %+v; want the auth failure of builder/b1 (anthropic claude-sonnet-5-5), key ANTHROPIC_API_KEY", st)
		}
		if !strings.Contains(n.Items[0].What, "builder/b1 (anthropic claude-sonnet-5-5)") || !strings.Contains(n.Items[0].What, "ANTHROPIC_API_KEY") ||
			!strings.HasPrefix(n.Items[0].Do, "set ANTHROPIC_API_KEY to a key anthropic accepts, then run the next night") {
			t.Errorf("the stop's item: %q / %q", n.Items[0].What, n.Items[0].Do)
		}

		// The parked actions: the map waits (its deadline and the time
		// left, in words), the night trains approved, the fetched book
		// and the harbour chart expired: those two lists are for the
		// record, not counted.
		var parked []string
		for _, p := range n.Parked {
			parked = append(parked, fmt.Sprintf("%s %q [%s | %s] %s", p.Status, p.Title, p.Approve, p.Deny, p.Then))
		}
		wantParked := []string{
			fmt.Sprintf(`waiting "a map of the old town" [nightshift task approve %d --db month.db | nightshift task deny %d --db month.db] `, mp, mp),
			`approved-not-run "a list of night trains" [ | ] `,
			`expired "a fetched book" [ | ] nobody answered by the deadline: the task failed`,
			`expired "a harbour chart" [ | ] nobody answered by the deadline: the task failed`,
		}
		if diff := cmp.Diff(wantParked, parked); diff != "" {
			t.Errorf("parked (-want +got):\n%s", diff)
		}
		w := n.Parked[0]
		if !w.Deadline.After(m.now) || !strings.Contains(w.Action, "curl -O https://example.org/a-map-of-the-old-town") {
			t.Errorf("the waiting action: %+v", w)
		}
		if it := n.Items[1]; !it.Deadline.Equal(w.Deadline) || !strings.Contains(it.When, "(in "+report.Human(w.Deadline.Sub(m.now))+")") {
			t.Errorf("the parked item's deadline %s, when %q; want the time left in words", it.Deadline, it.When)
		}

		// The judge's silent failure: every call lost from the 27th on,
		// named with its nights and counts; the builder's of the 18th and
		// the 19th were settled by the nights after them.
		if len(n.Silent) != 1 {
			t.Fatalf("silent failures %+v; want the judge's", n.Silent)
		}
		if s := n.Silent[0]; s.Kind != report.NoSuccess || s.Role != ledger.Judge ||
			!slices.Equal(s.Nights, []string{"2025-10-27", "2025-10-28", "2025-10-29", "2025-10-30"}) || s.Calls != 16 || s.Failed != 16 ||
			!strings.Contains(s.Last, "scored none of the ideas") {
			t.Errorf("the judge's silent failure: %+v", s)
		}

		steps, of := 0, 0
		for _, night := range nights[len(nights)-14:] {
			ss, _ := m.l.Steps(ctx, night.ID)
			for _, s := range ss {
				if s.Role == ledger.Builder && s.State != ledger.Interrupted && s.State != ledger.Running {
					of++
					if s.Task == atlas {
						steps++
					}
				}
			}
		}
		if len(n.FailedEveryModel) != 1 || n.FailedEveryModel[0].Title != "an atlas" || !slices.Equal(n.FailedEveryModel[0].Models, []string{"b1", "b2"}) ||
			n.FailedEveryModel[0].Steps != steps || n.FailedEveryModel[0].Of != of || steps < 14 {
			t.Errorf("failed on every model: %+v; want the atlas, on b1 and b2, %d of the fortnight's %d builder steps", n.FailedEveryModel, steps, of)
		}
		if len(n.Unverified) != 1 || n.Unverified[0].Title != glossary || n.Unverified[0].Night != "2025-10-30" ||
			!slices.Equal(n.Unverified[0].Checks, []string{"min-chars"}) || n.Unverified[0].Answer != "A glossary of 12 sailing terms." {
			t.Errorf("unverified: %d, want the glossary's latest attempt", len(n.Unverified))
		}
		// Weeks-old nights cut short are settled: nights ran on since.
		if len(n.CutShort) != 0 || len(r.Across.CutShortNames) != 4 {
			t.Errorf("nights cut short in needs: %+v (of %v); want none: each was followed by a night that was not", n.CutShort, r.Across.CutShortNames)
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
			if mk.Outcome == report.Failed && mk.Task != 0 && !strings.Contains(mk.Detail, "system auth: the provider refused the credentials") {
				t.Errorf("the failed builder mark says %q; want the auth failure that stopped the night", mk.Detail)
			}
			if mk.Outcome == report.Failed && mk.Task == 0 && !strings.Contains(mk.Detail, "judge/judge · failed · call failed-step") {
				t.Errorf("a failed mark without a task says %q; want one of the judge's lost calls", mk.Detail)
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
			{Role: ledger.Judge, Ceiling: 4, Took: took[ledger.Judge]}, {Role: ledger.Builder, Ceiling: 6, Took: took[ledger.Builder]}}
		if diff := cmp.Diff(wantCeilings, tl.Ceilings); diff != "" {
			t.Errorf("ceilings (-want +got):\n%s", diff)
		}
		if tl.End != ledger.SystemStopped || !tl.EndedAt.Equal(last.EndedAt) || tl.Reason != last.Reason || !tl.WindowStart.Equal(last.WindowStart) {
			t.Errorf("the timeline ends %s at %s (%s); the ledger %s at %s", tl.End, tl.EndedAt, tl.Reason, last.End, last.EndedAt)
		}
		// Its axis is the night's real span: to the stop, not the window.
		if !tl.From.Equal(last.WindowStart) || !tl.To.Equal(last.EndedAt) || !tl.To.Before(last.WindowEnd) {
			t.Errorf("the axis runs %s–%s; want the window's start to the night's end, %s", tl.From, tl.To, last.EndedAt)
		}
		// The two parked tasks wait for a person, from their parking to
		// the night's end.
		var waits []string
		for _, sp := range tl.Spans {
			if sp.Kind == report.WaitingForAPerson {
				waits = append(waits, fmt.Sprintf("%d %v", sp.Task, sp.End.Sub(sp.Start) > 0 && !sp.End.After(last.EndedAt)))
			}
		}
		sort.Strings(waits)
		ids := map[string]int64{}
		tasks, _ := m.l.Tasks(ctx)
		for _, task := range tasks {
			ids[task.Title] = task.ID
		}
		wantWaits := []string{fmt.Sprintf("%d true", ids["a list of night trains"]), fmt.Sprintf("%d true", ids["a map of the old town"])}
		sort.Strings(wantWaits)
		if !slices.Equal(waits, wantWaits) {
			t.Errorf("the waits for a person %v; want the map's and the night trains'", waits)
		}
	})

	t.Run("the spans no step shows: a worker sitting out, and a night idle for a person to its end", func(t *testing.T) {
		night := func(name string) report.Night {
			for _, n := range r.Nights {
				if n.Name == name {
					return n
				}
			}
			t.Fatalf("no night %s", name)
			return report.Night{}
		}
		n25 := night("2025-10-25")
		var out []report.Span
		for _, sp := range n25.Timeline.Spans {
			if sp.Kind == report.SittingOut {
				out = append(out, sp)
			}
		}
		fs, _ := m.l.Failures(ctx, n25.ID)
		var sent ledger.Failure
		for _, f := range fs {
			if f.Scope == ledger.WorkerScope {
				sent = f
			}
		}
		if len(out) != 1 || out[0].Role != ledger.Builder || out[0].Worker != "b1" || !out[0].Start.Equal(sent.At) || !out[0].End.Equal(n25.EndedAt) {
			t.Errorf("the 25th's sitting-out spans %+v; want b1's, from its second failure (%s) to the night's end", out, sent.At)
		}
		n27 := night("2025-10-27")
		steps, _ := m.l.Steps(ctx, n27.ID)
		var lastEnd time.Time
		for _, s := range steps {
			if s.EndedAt.After(lastEnd) {
				lastEnd = s.EndedAt
			}
		}
		var idle []report.Span
		for _, sp := range n27.Timeline.Spans {
			if sp.Kind == report.IdleWaiting {
				idle = append(idle, sp)
			}
		}
		if len(idle) != 1 || !idle[0].Start.Equal(lastEnd) || !idle[0].End.Equal(n27.WindowEnd) || !n27.EndedWaiting || n27.Waited != n27.WindowEnd.Sub(lastEnd) {
			t.Errorf("the 27th's idle spans %+v (ended waiting %v, waited %s); want one from its last step's end (%s) to the window's", idle, n27.EndedWaiting, n27.Waited, lastEnd)
		}
	})

	t.Run("what needs a person comes first in the text and in the JSON, and the JSON has no null list", func(t *testing.T) {
		var text, js bytes.Buffer
		if err := r.Text(&text); err != nil {
			t.Fatal(err)
		}
		if err := r.JSON(&js); err != nil {
			t.Fatal(err)
		}
		s := text.String()
		needs, night := strings.Index(s, "Needs a person (5), the most urgent first:"), strings.Index(s, "Night 2025-10-17")
		if needs < 0 || night < needs {
			t.Errorf("the text does not start with what needs a person:\n%s", s)
		}
		mp := r.Needs.Parked[0].Task
		for _, want := range []string{
			"  1. system stop · night 2025-10-30 stopped by a system-scope failure (auth)",
			"     Do: set ANTHROPIC_API_KEY to a key anthropic accepts, then run the next night\n       nightshift night --pipeline " + m.pipeline + " --db month.db\n",
			fmt.Sprintf("  2. parked · task %d \"a map of the old town\"", mp),
			fmt.Sprintf("       nightshift task approve %d --db month.db\n       nightshift task deny %d --db month.db\n", mp, mp),
			"  3. silent failure · judge (judge): no successful call on 4 nights: 16 calls, 16 failed (0 empty)",
			`"an atlas" failed on every builder model (b1, b2)`,
			"For the record (settled or in hand; nothing to do):",
			"Night 2025-10-30 at a glance",
			// The last night's glance is across its real span, to the stop.
			"                 22:00                                      02:54\n",
			"  silent failure: the builder (b2, b1) finished nothing while",
			"  sitting out: builder/b1 from 00:10 to the end of the night",
			"  counts as: ended waiting for a person",
			"  idle, waiting for a person: ",
			// By hand between nights, counted with the night before.
			"  recorded by hand after the night (1), counted with it:\n    2025-10-26 08:00 task   by-hand        task ",
			fmt.Sprintf("Failures: %d (", fortnightFailures(t, m)+1), "system-scope; 1 recorded by hand)",
			"Nights that ended waiting for a person: 1 (2025-10-27)",
			"given up: task ",
			"Tasks given up: 1",
		} {
			if !strings.Contains(s, want) {
				t.Errorf("the text lacks %q", want)
			}
		}
		// A title of 5,000 characters is clipped to a line.
		if strings.Contains(s, glossary) || !strings.Contains(s, `"`+string([]rune(glossary)[:report.TitleRunes-1])+`…"`) {
			t.Errorf("the text does not clip the glossary's title")
		}
		// Durations in words, never Go's.
		if d := regexp.MustCompile(`\d+h\d+m\d+s|\d+m\d+s ago|\(for \d`).FindString(s); d != "" {
			t.Errorf("the text writes a duration as %q", d)
		}
		// Every night says its cost; the 26th's is unknown (but for its
		// first attempt's $0.0035), and so is the fortnight's, with the
		// known part.
		last := r.Trend[len(r.Trend)-1]
		for _, want := range []string{
			fmt.Sprintf("%d tokens; cost $%.4f\n", last.Tokens, last.KnownUSD),
			fmt.Sprintf("Spent: %d tokens, cost unknown (at least $%.4f; %d step(s) without a price", r.Across.Tokens, r.Across.Spend.KnownUSD, r.Across.Spend.Unpriced),
		} {
			if !strings.Contains(s, want) {
				t.Errorf("the text lacks %q:\n%s", want, s)
			}
		}
		if row := regexp.MustCompile(`(?m)^  2025-10-26 .*$`).FindString(s); !strings.Contains(row, " ≥$0.0035? ") {
			t.Errorf("the 26th's row does not say its cost is unknown, at least $0.0035: %q", row)
		}
		if row := regexp.MustCompile(`(?m)^  2025-10-25 .*$`).FindString(s); !strings.HasSuffix(row, "3 task-scope, 1 worker-scope + 1 by hand after") {
			t.Errorf("the 25th's row does not count the failure by hand after it: %q", row)
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
		var raw any
		if err := json.Unmarshal(js.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		if nulls := nullsIn(raw, ""); len(nulls) > 0 {
			t.Errorf("the JSON has null where a list or an object belongs: %v", nulls)
		}
		if back.Across.ByHand != 1 || back.Nights[8].Name != "2025-10-25" || len(back.Nights[8].ByHandAfter) != 1 || back.Nights[8].ByHandAfter[0].ID != m.byHand.ID {
			t.Errorf("the JSON's failures by hand: across %d, the 25th's %+v; want the one recorded after it", back.Across.ByHand, back.Nights[8].ByHandAfter)
		}
		if back.Across.Dropped != 1 || back.Nights[13].Tasks.Dropped != 1 || back.Nights[13].Dropped[0].ID != m.drop.ID {
			t.Errorf("the JSON's drops: across %d, the 30th's %+v", back.Across.Dropped, back.Nights[13].Dropped)
		}
	})
}

// fortnightFailures counts the failures the ledger holds for the last 14
// nights.
func fortnightFailures(t *testing.T, m *month) int {
	nights, err := m.l.Nights(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for _, n := range nights[len(nights)-14:] {
		fs, _ := m.l.Failures(context.Background(), n.ID)
		k += len(fs)
	}
	return k
}

// silentNights counts the fortnight's silent failures by night, as the
// month's script made them.
var silentNights = map[string]int{"2025-10-18": 1, "2025-10-19": 1, "2025-10-27": 1, "2025-10-28": 1, "2025-10-29": 1, "2025-10-30": 1}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nullsIn lists the paths of the JSON's nulls but the costs' (cost_usd:
// null is an unknown cost, never $0).
func nullsIn(v any, path string) []string {
	var out []string
	switch x := v.(type) {
	case nil:
		if !strings.HasSuffix(path, ".cost_usd") {
			out = append(out, path)
		}
	case map[string]any:
		for k, e := range x {
			out = append(out, nullsIn(e, path+"."+k)...)
		}
	case []any:
		for i, e := range x {
			out = append(out, nullsIn(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return out
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
    "count": 0,
    "items": [],
    "parked": [],`) {
		t.Errorf("JSON (%v) lacks an empty needs_a_person:\n%s", err, js.String())
	}
	if err := r.HTML(&page); err != nil || !strings.Contains(page.String(), "Nothing needs a person.") {
		t.Errorf("page (%v) does not say nothing needs a person", err)
	}
	samePage(t, r)
}
