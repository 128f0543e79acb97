package eval

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteText prints the report as a small table for a person: both
// conditions side by side, then what the rules caught, then the verdicts
// that went against the expectation.
func (rep *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	model := rep.Model
	if model == "" {
		model = "(provider default)"
	}
	fmt.Fprintf(&b, "judge eval · %d cases (%d expected PASS, %d expected FAIL) · %d %s · judge %s\n\n",
		rep.Cases, rep.ExpectedPass, rep.Cases-rep.ExpectedPass, rep.Runs, plural(rep.Runs, "run"), model)

	tw := tabwriter.NewWriter(&b, 0, 0, 3, ' ', 0)
	// A judge that gave no verdict gets a column of its own, apart from
	// its FAILs (issue 28: it read exactly like a strict judge).
	silent := rep.Isolated.NoVerdict+rep.Transcript.NoVerdict > 0
	header := "condition\tPASS rate\tagreement\tfalse PASS\tfalse FAIL"
	if silent {
		header += "\tno verdict"
	}
	fmt.Fprintln(tw, header)
	for _, m := range []ModeReport{rep.Isolated, rep.Transcript} {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d", m.Mode, rep.share(m.PassRate), rep.share(m.Agreement), m.FalsePass, m.FalseFail)
		if silent {
			fmt.Fprintf(tw, "\t%d", m.NoVerdict)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if silent {
		fmt.Fprintf(&b, "\nThe judge gave no verdict %d %s (its replies did not begin with PASS or FAIL): a run fails those results, but they say nothing of the judge's strictness; they are counted apart from FAIL.\n",
			rep.Isolated.NoVerdict+rep.Transcript.NoVerdict, plural(rep.Isolated.NoVerdict+rep.Transcript.NoVerdict, "time"))
	}

	if d := 100 * (rep.Transcript.PassRate.Mean - rep.Isolated.PassRate.Mean); d >= 0.5 {
		fmt.Fprintf(&b, "\nShown the transcript, the judge passed %.0f points more: a judge shown the process grades the process.\n", d)
	} else if d <= -0.5 {
		fmt.Fprintf(&b, "\nShown the transcript, the judge passed %.0f points fewer.\n", -d)
	} else {
		b.WriteString("\nThe transcript did not change the judge's PASS rate.\n")
	}
	if rr := rep.Rules; rr.Cases > 0 {
		fmt.Fprintf(&b, "Rules: %d of %d cases have checks; they failed %d (%d expected FAIL, %d expected PASS).\n",
			rr.Cases, rep.Cases, rr.Failed, rr.Caught, rr.Wrong)
	}
	if len(rep.FailsByCheck) > 0 {
		checks := slices.SortedFunc(maps.Keys(rep.FailsByCheck), func(a, b string) int {
			return cmp.Or(rep.FailsByCheck[b]-rep.FailsByCheck[a], strings.Compare(a, b))
		})
		parts := make([]string, len(checks))
		for i, c := range checks {
			parts[i] = fmt.Sprintf("%s %d", c, rep.FailsByCheck[c])
		}
		fmt.Fprintf(&b, "FAILs by deciding check: %s\n", strings.Join(parts, " · "))
	}

	var wrong []Result
	for _, r := range rep.Results {
		if !r.Agree && r.Run == 1 {
			wrong = append(wrong, r)
		}
	}
	// The isolated misses first: they are what a run would let through.
	slices.SortStableFunc(wrong, func(a, b Result) int { return slices.Index(Modes, a.Mode) - slices.Index(Modes, b.Mode) })
	if len(wrong) > 0 {
		b.WriteString("\nAgainst the expectation (run 1):\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, r := range wrong {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r.Mode, r.Verdict(), r.Case, clip(r.Reason, 80))
		}
		tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// share prints a per-run share as a percentage, with its range and
// standard deviation when there was more than one run.
func (rep *Report) share(s Spread) string {
	if rep.Runs <= 1 {
		return fmt.Sprintf("%.0f%%", 100*s.Mean)
	}
	return fmt.Sprintf("%.0f%% (%.0f–%.0f, sd %.1f)", 100*s.Mean, 100*s.Min, 100*s.Max, 100*s.StdDev)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// clip shortens s to n characters on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
