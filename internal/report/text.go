package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/internal/terminal"
	"github.com/nightshift-dev/nightshift/ledger"
)

// JSON writes the report as one indented JSON document, every list
// written as a list ([] when empty), never null.
func (r *Report) JSON(w io.Writer) error {
	fillLists(r)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Location is the zone the report writes times in: the latest covered
// night's window's, else UTC.
func (r *Report) Location() *time.Location {
	if len(r.Nights) == 0 {
		return time.UTC
	}
	return r.Nights[len(r.Nights)-1].Timeline.Location()
}

// Text writes the report for a person to read in a terminal: what needs a
// person, then each night, the last one at a glance, and the numbers
// across nights.
func (r *Report) Text(w io.Writer) error {
	var b strings.Builder
	loc := r.Location()
	fmt.Fprintf(&b, "nightshift report, %s: %s\n\n", r.At.In(loc).Format("2006-01-02 15:04 MST"), r.Covers)
	r.needsText(&b, loc)
	for _, n := range r.Nights {
		nightText(&b, n)
	}
	if len(r.Nights) > 0 {
		last := r.Nights[len(r.Nights)-1]
		fmt.Fprintf(&b, "Night %s at a glance (one column per %s; %s):\n", last.Name, roundDur(glanceStep(last.Timeline)), legendText)
		glanceText(&b, last.Timeline)
		b.WriteString("\n")
	}
	r.acrossText(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// needsText writes what needs a person, the most urgent first, each
// with what broke, when, what to do and the commands that do it; then,
// for the record, the parked actions nobody need answer; or says that
// nothing needs a person.
func (r *Report) needsText(b *strings.Builder, loc *time.Location) {
	items := r.Needs.Items
	if items == nil {
		items = r.Needs.items(r.At, loc)
	}
	if len(items) == 0 {
		b.WriteString("Nothing needs a person.\n\n")
	} else {
		fmt.Fprintf(b, "Needs a person (%d), the most urgent first:\n", len(items))
		for i, it := range items {
			fmt.Fprintf(b, "  %d. %s · %s\n", i+1, kindText[it.Kind], terminal.Escape(it.What))
			if it.When != "" {
				fmt.Fprintf(b, "     %s\n", it.When)
			}
			fmt.Fprintf(b, "     Do: %s\n", terminal.Escape(it.Do))
			for _, c := range it.Commands {
				fmt.Fprintf(b, "       %s\n", terminal.Escape(c))
			}
		}
		b.WriteString("\n")
	}
	var record []ParkedAction
	for _, p := range r.Needs.Parked {
		if !p.counted() {
			record = append(record, p)
		}
	}
	if len(record) == 0 {
		return
	}
	b.WriteString("For the record (settled or in hand; nothing to do):\n")
	for _, p := range record {
		// The action is what a model asked to run: shown escaped, so
		// that what a person approves is what will run (issue 11).
		fmt.Fprintf(b, "  %-16s task %d %q: %s\n", p.Status, p.Task, clipTitle(p.Title), gate.Escape(p.Action))
		if p.Status == ApprovedNotRun {
			fmt.Fprintf(b, "%18s approved %s (%s); the next night runs it first\n", "", stamp(p.Since, loc), ago(p.Since, r.At))
		} else {
			fmt.Fprintf(b, "%18s deadline %s: %s\n", "", stamp(p.Deadline, loc), p.Then)
		}
	}
	b.WriteString("\n")
}

// kindText names an item's kind in the text and on the page.
var kindText = map[string]string{
	KindStop:       "system stop",
	KindParked:     "parked",
	KindSilent:     "silent failure",
	KindCutShort:   "cut short",
	KindExhausted:  "failed on every model",
	KindUnverified: "unverified",
}

func nightText(b *strings.Builder, n Night) {
	loc := n.Timeline.Location()
	hm := func(t time.Time) string { return t.In(loc).Format("15:04") }
	fmt.Fprintf(b, "Night %s  window %s–%s%s\n", n.Name, n.WindowStart.In(loc).Format("2006-01-02 15:04"), hm(n.WindowEnd), clocksChange(n.WindowStart, n.WindowEnd, loc))
	for _, st := range n.Stops {
		fmt.Fprintf(b, "  stopped %s at %s: %s; resumed at %s by %s\n", st.End, hm(st.At), terminal.Escape(st.Reason), hm(st.ResumedAt), terminal.Escape(st.Owner))
	}
	if n.Ended() {
		fmt.Fprintf(b, "  ended %s at %s: %s\n", n.End, hm(n.EndedAt), terminal.Escape(n.Reason))
	} else {
		b.WriteString("  still running\n")
	}
	switch {
	case n.CutShort:
		b.WriteString("  counts as: cut short (failure handling stopped work before the window closed)\n")
	case n.OutOfWork:
		b.WriteString("  counts as: out of work (nothing takeable before the window closed)\n")
	case n.EndedWaiting:
		b.WriteString("  counts as: ended waiting for a person (the window closed while the night sat idle for an answer)\n")
	}
	for _, s := range n.Silent {
		fmt.Fprintf(b, "  silent failure: %s\n", silentNightText(s))
	}
	for _, sp := range n.Timeline.Spans {
		switch sp.Kind {
		case SittingOut:
			fmt.Fprintf(b, "  sitting out: %s/%s from %s to the end of the night\n", sp.Role, sp.Worker, hm(sp.Start))
		case WaitingForProvider:
			fmt.Fprintf(b, "  waiting for the provider: %s/%s %s–%s (%s), no task charged\n", sp.Role, sp.Worker, hm(sp.Start), hm(sp.End), Human(sp.End.Sub(sp.Start)))
		case IdleWaiting:
			fmt.Fprintf(b, "  idle, waiting for a person: %s–%s (%s)\n", hm(sp.Start), hm(sp.End), Human(sp.End.Sub(sp.Start)))
		}
	}
	fmt.Fprintf(b, "  steps finished: %s", ceilingsText(n))
	if n.Interrupted > 0 {
		fmt.Fprintf(b, " (%d interrupted and continued or retried)", n.Interrupted)
	}
	fmt.Fprintf(b, "; %d tokens%s", n.Tokens, cacheText(n.Spend))
	if n.Timeline.BudgetTokens > 0 {
		fmt.Fprintf(b, " of a budget of %d", n.Timeline.BudgetTokens)
	}
	fmt.Fprintf(b, "; cost %s\n", n.Spend.CostText())
	fmt.Fprintf(b, "  builder steps: %s\n", builderCounts(n))
	if len(n.Failures) > 0 {
		fmt.Fprintf(b, "  failures (%d): %s\n", len(n.Failures), scopesText(n.ByScope))
		for _, f := range n.Failures {
			failureLine(b, f, "")
		}
	}
	if len(n.ByHandAfter) > 0 {
		fmt.Fprintf(b, "  recorded by hand after the night (%d), counted with it:\n", len(n.ByHandAfter))
		for _, f := range n.ByHandAfter {
			failureLine(b, f, f.At.In(loc).Format("2006-01-02 15:04")+" ")
		}
	}
	for _, d := range n.Dropped {
		fmt.Fprintf(b, "  given up: task %d (it was %s) at %s%s\n", d.Task, d.Was, d.At.In(loc).Format("2006-01-02 15:04"), reasonText(d.Reason))
	}
	if len(n.FailsByCheck) > 0 {
		checks := make([]string, 0, len(n.FailsByCheck))
		for c, k := range n.FailsByCheck {
			checks = append(checks, fmt.Sprintf("%s %d", c, k))
		}
		sort.Strings(checks)
		fmt.Fprintf(b, "  FAILs by check: %s\n", strings.Join(checks, ", "))
	}
	for _, note := range n.Notes {
		fmt.Fprintf(b, "  note %s: %s\n", note.Kind, note.Text)
	}
	b.WriteString("\n")
}

// failureLine writes one failure of a night's account.
func failureLine(b *strings.Builder, f ledger.Failure, at string) {
	who := f.Worker
	if f.Manual {
		who = "by hand"
	}
	if who != "" {
		who = " " + who
	}
	task := "no task"
	if f.Task != 0 {
		task = fmt.Sprintf("task %d", f.Task)
	}
	fmt.Fprintf(b, "    %s%-6s %-14s %s%s: %s\n", at, f.Scope, f.Rule, task, terminal.Escape(who), terminal.Escape(f.Reason))
}

func reasonText(r string) string {
	if r == "" {
		return ""
	}
	return ": " + terminal.Escape(r)
}

// silentNightText says one night's silent failure.
func silentNightText(s Silent) string {
	who := string(s.Role)
	if len(s.Workers) > 0 {
		who += " (" + strings.Join(s.Workers, ", ") + ")"
	}
	if s.Kind == FinishedNothing {
		return fmt.Sprintf("the %s finished nothing while %d %s waited that it never took; %d %s taken, %d failed, %d parked", who, s.Waiting, plural(s.Waiting, "task"),
			s.Calls, plural(s.Calls, "attempt"), s.Failed, s.Parked)
	}
	return fmt.Sprintf("the %s made no successful call: %d %s, %d failed (%d empty)%s", who, s.Calls, plural(s.Calls, "call"), s.Failed, s.Empty, lastText(s.Last))
}

// clocksChange says how long a window lasts when the clocks change in it
// (a window of 22:00 to 06:00 lasts 9 hours the night they go back), or
// nothing.
func clocksChange(start, end time.Time, loc *time.Location) string {
	_, a := start.In(loc).Zone()
	_, b := end.In(loc).Zone()
	if a == b {
		return ""
	}
	return fmt.Sprintf(" (%s: the clocks change)", Human(end.Sub(start)))
}

// builderCounts says how the night's builder steps ended, as the
// timeline marks them, and how many tasks went on the skip list.
func builderCounts(n Night) string {
	by := map[Outcome]int{}
	for _, r := range n.Timeline.Rows {
		if r.Role == ledger.Builder {
			for _, m := range r.Marks {
				by[m.Outcome]++
			}
		}
	}
	s := fmt.Sprintf("%d done, %d skipped (failed, charged to their task), %d failed (charged higher), %d parked", by[Done], by[Skipped], by[Failed], by[Parked])
	if by[Interrupted] > 0 {
		s += fmt.Sprintf(", %d interrupted", by[Interrupted])
	}
	return s + fmt.Sprintf("; %d %s on tonight's skip list", n.Tasks.Skipped, plural(n.Tasks.Skipped, "task"))
}

// ceilingsText says the steps each role finished, with its ceiling:
// "proposer 15, judge 14, builder 14 of 14".
func ceilingsText(n Night) string {
	var parts []string
	for _, role := range ledger.Roles {
		c := ""
		for _, x := range n.Timeline.Ceilings {
			if x.Role == role && x.Ceiling > 0 {
				c = fmt.Sprintf(" of %d", x.Ceiling)
			}
		}
		parts = append(parts, fmt.Sprintf("%s %d%s", role, n.Finished[role], c))
	}
	return strings.Join(parts, ", ")
}

// scopesText counts failures by scope: "2 call-scope, 1 task-scope" (a
// bare "task 1" read like a task's ID).
func scopesText(by map[ledger.Scope]int) string {
	var scopes []string
	for _, s := range ledger.Scopes {
		if c := by[s]; c > 0 {
			scopes = append(scopes, fmt.Sprintf("%d %s-scope", c, s))
		}
	}
	return strings.Join(scopes, ", ")
}

// The glance: one line per worker, one character per column of the window.
const glanceCols = 48

var glyph = map[Outcome]byte{Done: '#', Skipped: 's', Failed: 'X', Parked: 'P', Interrupted: '!', Running: '>'}

const legendText = "# done, s skipped, X failed, P parked, ! interrupted, > running"

func glanceStep(t Timeline) time.Duration { return t.To.Sub(t.From) / glanceCols }

// glanceText draws a timeline in characters, across the night's real
// span: a column shows the worst outcome of the steps that started in
// it; "|" marks the window's end when the night ran past it.
func glanceText(b *strings.Builder, t Timeline) {
	step := glanceStep(t)
	if step <= 0 {
		return
	}
	loc := t.Location()
	width := 0
	for _, r := range t.Rows {
		width = max(width, len(r.Role)+1+len(r.Worker))
	}
	fmt.Fprintf(b, "  %-*s  %-*s%s\n", width, "", glanceCols-5, t.From.In(loc).Format("15:04"), t.To.In(loc).Format("15:04"))
	col := func(at time.Time) int { return int(at.Sub(t.From) / step) }
	for _, r := range t.Rows {
		cols := []byte(strings.Repeat(".", glanceCols))
		for _, m := range r.Marks {
			i := min(max(col(m.Start), 0), glanceCols-1)
			if cols[i] == '.' || severity(m.Outcome) > severity(outcomeOfGlyph(cols[i])) {
				cols[i] = glyph[m.Outcome]
			}
		}
		if !t.EndedAt.IsZero() {
			for j := col(t.EndedAt) + 1; j >= 1 && j < glanceCols; j++ {
				cols[j] = ' '
			}
		}
		if i := col(t.WindowEnd); i >= 0 && i < glanceCols && t.WindowEnd.Before(t.To) && cols[i] == '.' {
			cols[i] = '|'
		}
		fmt.Fprintf(b, "  %-*s  %s  %d\n", width, string(r.Role)+"/"+r.Worker, cols, len(r.Marks))
	}
	if !t.EndedAt.IsZero() {
		fmt.Fprintf(b, "  ended %s at %s: %s", t.End, t.EndedAt.In(loc).Format("15:04"), terminal.Escape(t.Reason))
		if t.EndedAt.Before(t.WindowEnd) {
			fmt.Fprintf(b, " (%s before the window closed at %s)", Human(t.WindowEnd.Sub(t.EndedAt)), t.WindowEnd.In(loc).Format("15:04"))
		}
		b.WriteString("\n")
	}
}

// severity orders outcomes for the glance: the one a person should see
// wins a shared column.
func severity(o Outcome) int {
	switch o {
	case Failed:
		return 5
	case Parked:
		return 4
	case Skipped:
		return 3
	case Interrupted:
		return 2
	case Running:
		return 1
	}
	return 0
}

func outcomeOfGlyph(c byte) Outcome {
	for o, g := range glyph {
		if g == c {
			return o
		}
	}
	return ""
}

func (r *Report) acrossText(b *strings.Builder) {
	a := r.Across
	fmt.Fprintf(b, "Across %s (%d %s):\n", r.Covers, a.Nights, plural(a.Nights, "night"))
	if len(r.Trend) > 0 {
		fmt.Fprintf(b, "  %-10s  %7s  %4s %7s %6s %6s  %-22s  %9s  %9s  %s\n", "night", "builder", "done", "skipped", "failed", "parked", "end", "tokens", "cost", "failures")
		for _, p := range r.Trend {
			end := string(p.End)
			switch {
			case p.CutShort:
				end += " (cut)"
			case p.OutOfWork:
				end += " (out)"
			case p.EndedWaiting:
				end += " (wait)"
			}
			fails := scopesText(p.Failures)
			if p.ByHandAfter > 0 {
				fails = strings.TrimPrefix(fails+fmt.Sprintf(" + %d by hand after", p.ByHandAfter), " + ")
			}
			fmt.Fprintf(b, "  %-10s  %7d  %4d %7d %6d %6d  %-22s  %9d  %10s  %s\n", p.Night, p.Steps, p.Builder[Done], p.Builder[Skipped],
				p.Builder[Failed], p.Builder[Parked], end, p.Tokens, shortCost(p), fails)
		}
	}
	b.WriteString("Builder steps finished per night:")
	for _, c := range a.BuilderSteps {
		fmt.Fprintf(b, " %s=%d", c.Night, c.N)
	}
	fmt.Fprintf(b, "\nNights cut short: %d%s", a.CutShort, names(a.CutShortNames))
	fmt.Fprintf(b, "\nNights out of work: %d%s", a.OutOfWork, names(a.OutOfWorkNames))
	fmt.Fprintf(b, "\nNights that ended early (both): %d%s", a.EndedEarly, names(a.EarlyNames))
	if a.EndedWaiting > 0 {
		fmt.Fprintf(b, "\nNights that ended waiting for a person: %d%s", a.EndedWaiting, names(a.EndedWaitingNames))
	}
	total := 0
	for _, k := range a.Failures {
		total += k
	}
	fmt.Fprintf(b, "\nFailures: %d", total)
	if total > 0 {
		fmt.Fprintf(b, " (%s; %d recorded by hand)", scopesText(a.Failures), a.ByHand)
	}
	if a.Silent > 0 {
		fmt.Fprintf(b, "\nSilent failures: %d (work that did not happen, and said nothing)", a.Silent)
	}
	if a.Dropped > 0 {
		fmt.Fprintf(b, "\nTasks given up: %d", a.Dropped)
	}
	fmt.Fprintf(b, "\nSpent: %d tokens%s, cost %s", a.Tokens, cacheText(a.Spend), a.Spend.CostText())
	b.WriteString("\n")
}

// cacheText says what the prompt cache took of the tokens, as `nightshift
// run`'s closing line does: " (cache: W written, R read)", or nothing
// when the cache was not used.
func cacheText(s ledger.Spend) string {
	if s.CacheWriteTokens == 0 && s.CacheReadTokens == 0 {
		return ""
	}
	return fmt.Sprintf(" (cache: %d written, %d read)", s.CacheWriteTokens, s.CacheReadTokens)
}

// stamp writes a moment as a date and a time in loc.
func stamp(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "-"
	}
	return t.In(loc).Format("2006-01-02 15:04")
}

// roundDur rounds a duration for a person: minutes, or seconds under one.
func roundDur(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(time.Minute)
}

// names lists night names in parentheses, or nothing.
func names(ns []string) string {
	if len(ns) == 0 {
		return ""
	}
	return " (" + strings.Join(ns, ", ") + ")"
}

// plural returns word for one, and word+"s" for any other count.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// shortCost is a night's cost for a table's cell: the dollars, or
// "≥$x?" when some step had no price (the night's own lines say how
// many), the known part to the same four places (a known $0.0035 read
// "≥$0.00?").
func shortCost(p Point) string {
	if usd, ok := p.Cost.USD(); ok {
		return fmt.Sprintf("$%.4f", usd)
	}
	return fmt.Sprintf("≥$%.4f?", p.KnownUSD)
}
