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

// Text writes the report for a person to read in a terminal.
func (r *Report) Text(w io.Writer) error {
	var b strings.Builder
	if len(r.Attention) > 0 {
		b.WriteString("Needs a person:\n")
		for _, a := range r.Attention {
			// The action is what a model asked to run: shown escaped, so
			// that what a person approves is what will run (issue 11).
			fmt.Fprintf(&b, "  %-17s task %d %q: %s (for %s", a.Status, a.Task, a.Title, gate.Escape(a.Action), a.For.Round(time.Minute))
			if a.Status != "approved-not-run" {
				fmt.Fprintf(&b, ", deadline %s", a.Deadline.Format("2006-01-02 15:04"))
			}
			b.WriteString(")\n")
		}
		b.WriteString("\n")
	}
	for _, n := range r.Nights {
		fmt.Fprintf(&b, "Night %s  window %s–%s\n", n.Name, n.WindowStart.Format("2006-01-02 15:04"), n.WindowEnd.Format("15:04"))
		for _, st := range n.Stops {
			fmt.Fprintf(&b, "  stopped %s at %s: %s; resumed at %s by %s\n", st.End, st.At.Format("15:04"), st.Reason, st.ResumedAt.Format("15:04"), st.Owner)
		}
		if n.Ended() {
			fmt.Fprintf(&b, "  ended %s at %s: %s\n", n.End, n.EndedAt.Format("15:04"), n.Reason)
		} else {
			b.WriteString("  still running\n")
		}
		switch {
		case n.CutShort:
			b.WriteString("  counts as: cut short (failure handling stopped work before the window closed)\n")
		case n.OutOfWork:
			b.WriteString("  counts as: out of work (nothing takeable before the window closed)\n")
		}
		fmt.Fprintf(&b, "  steps finished: proposer %d, judge %d, builder %d", n.Finished[ledger.Proposer], n.Finished[ledger.Judge], n.Finished[ledger.Builder])
		if n.Interrupted > 0 {
			fmt.Fprintf(&b, " (%d interrupted and retried)", n.Interrupted)
		}
		fmt.Fprintf(&b, "; %d tokens\n", n.Tokens)
		fmt.Fprintf(&b, "  tasks: %d done, %d failed %s, %d skipped tonight, %d parked\n", n.Tasks.Done, n.Tasks.Failed, plural(n.Tasks.Failed, "attempt"), n.Tasks.Skipped, n.Tasks.Parked)
		if len(n.Failures) > 0 {
			var scopes []string
			for _, s := range ledger.Scopes {
				if c := n.ByScope[s]; c > 0 {
					scopes = append(scopes, fmt.Sprintf("%s %d", s, c))
				}
			}
			fmt.Fprintf(&b, "  failures: %s\n", strings.Join(scopes, ", "))
			for _, f := range n.Failures {
				who := f.Worker
				if f.Manual {
					who = "by hand"
				}
				fmt.Fprintf(&b, "    %-6s %-14s task %d %s: %s\n", f.Scope, f.Rule, f.Task, who, f.Reason)
			}
		}
		if len(n.FailsByCheck) > 0 {
			checks := make([]string, 0, len(n.FailsByCheck))
			for c, k := range n.FailsByCheck {
				checks = append(checks, fmt.Sprintf("%s %d", c, k))
			}
			sort.Strings(checks)
			fmt.Fprintf(&b, "  FAILs by check: %s\n", strings.Join(checks, ", "))
		}
		for _, note := range n.Notes {
			fmt.Fprintf(&b, "  note %s: %s\n", note.Kind, note.Text)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Across %d %s: builder steps finished per night:", r.Across.Nights, plural(r.Across.Nights, "night"))
	for _, c := range r.Across.BuilderSteps {
		fmt.Fprintf(&b, " %s=%d", c.Night, c.N)
	}
	fmt.Fprintf(&b, "\nNights cut short: %d%s", r.Across.CutShort, names(r.Across.CutShortNames))
	fmt.Fprintf(&b, "\nNights out of work: %d%s", r.Across.OutOfWork, names(r.Across.OutOfWorkNames))
	fmt.Fprintf(&b, "\nNights that ended early (both): %d%s", r.Across.EndedEarly, names(r.Across.EarlyNames))
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
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
