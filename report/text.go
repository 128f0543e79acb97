package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/ledger"
)

// JSON writes the report as one indented JSON document.
func (r *Report) JSON(w io.Writer) error {
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

// needsText writes what needs a person, or says nothing does.
func (r *Report) needsText(b *strings.Builder, loc *time.Location) {
	n := r.Needs
	if n.Empty() {
		b.WriteString("Nothing needs a person.\n\n")
		return
	}
	fmt.Fprintf(b, "Needs a person (%d):\n", n.Count())
	if len(n.Parked) > 0 {
		b.WriteString("  Parked actions:\n")
		for _, p := range n.Parked {
			// The action is what a model asked to run: shown escaped, so
			// that what a person approves is what will run (issue 11).
			fmt.Fprintf(b, "    %-16s task %d %q: %s\n", p.Status, p.Task, p.Title, gate.Escape(p.Action))
			switch p.Status {
			case ApprovedNotRun:
				fmt.Fprintf(b, "%20s approved %s (for %s); the next night runs it first\n", "", stamp(p.Since, loc), roundDur(p.For))
			case Expired:
				fmt.Fprintf(b, "%20s deadline %s: %s\n", "", stamp(p.Deadline, loc), p.Then)
			default:
				fmt.Fprintf(b, "%20s parked %s (for %s), deadline %s\n", "", stamp(p.AskedAt, loc), roundDur(p.For), stamp(p.Deadline, loc))
			}
			if p.Approve != "" {
				fmt.Fprintf(b, "%20s %s   or   %s\n", "", p.Approve, p.Deny)
			}
		}
	}
	if len(n.Stops) > 0 {
		b.WriteString("  System stops:\n")
		for _, s := range n.Stops {
			if s.Rule != "" {
				fmt.Fprintf(b, "    night %s stopped at %s by a system-scope failure (%s): %s\n", s.Night, stamp(s.At, loc), s.Rule, s.Cause)
			} else {
				fmt.Fprintf(b, "    night %s stopped at %s: %s\n", s.Night, stamp(s.At, loc), s.Reason)
			}
			fmt.Fprintf(b, "      %s\n", s.Do)
		}
	}
	if len(n.FailedEveryModel) > 0 {
		b.WriteString("  Failed on every model of their role:\n")
		for _, e := range n.FailedEveryModel {
			fmt.Fprintf(b, "    task %d %q: %s %s, %d failed %s; last: %s\n", e.Task, e.Title, e.Role, strings.Join(e.Models, ", "),
				e.Attempts, plural(e.Attempts, "attempt"), e.Last)
		}
	}
	if len(n.Unverified) > 0 {
		b.WriteString("  Unverified results (no PASS: a person must look):\n")
		for _, u := range n.Unverified {
			fmt.Fprintf(b, "    task %d %q: night %s, %s", u.Task, u.Title, u.Night, u.Worker)
			if len(u.Checks) > 0 {
				fmt.Fprintf(b, ", failed %s", strings.Join(u.Checks, ", "))
			}
			if u.Reason != "" {
				fmt.Fprintf(b, ": %s", u.Reason)
			}
			b.WriteString("\n")
		}
	}
	if len(n.CutShort) > 0 {
		b.WriteString("  Nights cut short by failure handling:\n")
		for _, c := range n.CutShort {
			fmt.Fprintf(b, "    %s %s at %s: %s", c.Night, c.End, stamp(c.At, loc), c.Reason)
			if c.Resumed {
				b.WriteString(" (resumed)")
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
}

func nightText(b *strings.Builder, n Night) {
	loc := n.Timeline.Location()
	hm := func(t time.Time) string { return t.In(loc).Format("15:04") }
	fmt.Fprintf(b, "Night %s  window %s–%s\n", n.Name, n.WindowStart.In(loc).Format("2006-01-02 15:04"), hm(n.WindowEnd))
	for _, st := range n.Stops {
		fmt.Fprintf(b, "  stopped %s at %s: %s; resumed at %s by %s\n", st.End, hm(st.At), st.Reason, hm(st.ResumedAt), st.Owner)
	}
	if n.Ended() {
		fmt.Fprintf(b, "  ended %s at %s: %s\n", n.End, hm(n.EndedAt), n.Reason)
	} else {
		b.WriteString("  still running\n")
	}
	switch {
	case n.CutShort:
		b.WriteString("  counts as: cut short (failure handling stopped work before the window closed)\n")
	case n.OutOfWork:
		b.WriteString("  counts as: out of work (nothing takeable before the window closed)\n")
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
		fmt.Fprintf(b, "  failures: %s\n", scopesText(n.ByScope))
		for _, f := range n.Failures {
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
			fmt.Fprintf(b, "    %-6s %-14s %s%s: %s\n", f.Scope, f.Rule, task, who, f.Reason)
		}
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

func scopesText(by map[ledger.Scope]int) string {
	var scopes []string
	for _, s := range ledger.Scopes {
		if c := by[s]; c > 0 {
			scopes = append(scopes, fmt.Sprintf("%s %d", s, c))
		}
	}
	return strings.Join(scopes, ", ")
}

// The glance: one line per worker, one character per column of the window.
const glanceCols = 48

var glyph = map[Outcome]byte{Done: '#', Skipped: 's', Failed: 'X', Parked: 'P', Interrupted: '!', Running: '>'}

const legendText = "# done, s skipped, X failed, P parked, ! interrupted, > running"

func glanceStep(t Timeline) time.Duration { return t.WindowEnd.Sub(t.WindowStart) / glanceCols }

// glanceText draws a timeline in characters: a column shows the worst
// outcome of the steps that started in it.
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
	fmt.Fprintf(b, "  %-*s  %-*s%s\n", width, "", glanceCols-5, t.WindowStart.In(loc).Format("15:04"), t.WindowEnd.In(loc).Format("15:04"))
	for _, r := range t.Rows {
		cols := []byte(strings.Repeat(".", glanceCols))
		for _, m := range r.Marks {
			i := min(max(int(m.Start.Sub(t.WindowStart)/step), 0), glanceCols-1)
			if cols[i] == '.' || severity(m.Outcome) > severity(outcomeOfGlyph(cols[i])) {
				cols[i] = glyph[m.Outcome]
			}
		}
		if !t.EndedAt.IsZero() && t.EndedAt.Before(t.WindowEnd) {
			if i := int(t.EndedAt.Sub(t.WindowStart) / step); i >= 0 && i < glanceCols {
				for j := i + 1; j < glanceCols; j++ {
					cols[j] = ' '
				}
				if cols[i] == '.' {
					cols[i] = '|'
				}
			}
		}
		fmt.Fprintf(b, "  %-*s  %s  %d\n", width, string(r.Role)+"/"+r.Worker, cols, len(r.Marks))
	}
	if !t.EndedAt.IsZero() {
		fmt.Fprintf(b, "  ended %s at %s: %s\n", t.End, t.EndedAt.In(loc).Format("15:04"), t.Reason)
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
			}
			fmt.Fprintf(b, "  %-10s  %7d  %4d %7d %6d %6d  %-22s  %9d  %9s  %s\n", p.Night, p.Steps, p.Builder[Done], p.Builder[Skipped],
				p.Builder[Failed], p.Builder[Parked], end, p.Tokens, shortCost(p), scopesText(p.Failures))
		}
	}
	b.WriteString("Builder steps finished per night:")
	for _, c := range a.BuilderSteps {
		fmt.Fprintf(b, " %s=%d", c.Night, c.N)
	}
	fmt.Fprintf(b, "\nNights cut short: %d%s", a.CutShort, names(a.CutShortNames))
	fmt.Fprintf(b, "\nNights out of work: %d%s", a.OutOfWork, names(a.OutOfWorkNames))
	fmt.Fprintf(b, "\nNights that ended early (both): %d%s", a.EndedEarly, names(a.EarlyNames))
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

// shortCost is a night's cost for a table's cell: the dollars, or "≥$x?"
// when some step had no price (the night's own lines say how many).
func shortCost(p Point) string {
	if usd, ok := p.Cost.USD(); ok {
		return fmt.Sprintf("$%.4f", usd)
	}
	return fmt.Sprintf("≥$%.2f?", p.KnownUSD)
}
