package claimeval

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/nightshift-dev/nightshift/verify"
)

// Groups are the kinds of claims the report measures, in its order:
// count (a file's characters, words, lines, bytes, items), file (a file
// written or deleted), command (tests, a build, a linter passed) and
// answer (the answer's count of what the task asked for).
var Groups = []string{"count", "file", "command", "answer"}

// Score measures the check on one group of claims. A positive is a false
// claim: the check is right to FAIL it.
type Score struct {
	// False counts the expected false claims; Caught those the check
	// found false; FalseFails the claims it found false that are not
	// (true, unchecked, or not claims at all).
	False, Caught, FalseFails int
	// True counts the expected true claims, Confirmed those it found
	// true; Unchecked the expected unchecked ones, Held those it left
	// unchecked or found true.
	True, Confirmed, Unchecked, Held int
}

// Precision is the share of the check's FAILs that are right; 1 when it
// failed nothing.
func (s Score) Precision() float64 {
	if s.Caught+s.FalseFails == 0 {
		return 1
	}
	return float64(s.Caught) / float64(s.Caught+s.FalseFails)
}

// Recall is the share of the false claims the check caught; 1 when there
// were none.
func (s Score) Recall() float64 {
	if s.False == 0 {
		return 1
	}
	return float64(s.Caught) / float64(s.False)
}

func (s *Score) add(o Score) {
	s.False += o.False
	s.Caught += o.Caught
	s.FalseFails += o.FalseFails
	s.True += o.True
	s.Confirmed += o.Confirmed
	s.Unchecked += o.Unchecked
	s.Held += o.Held
}

// Report is what an eval of the claims check measured.
type Report struct {
	// Cases counts the cases; WithFalse those with a false claim.
	Cases, WithFalse int
	// FalseFailCases counts the cases without a false claim in which the
	// check found one: each would have cost the worker a round.
	FalseFailCases int
	// ByGroup scores each group (Groups); ByLang each language; All every
	// claim.
	ByGroup map[string]*Score
	ByLang  map[string]*Score
	All     Score
	// Results holds every finding, expected or not, in case order.
	Results []Result
}

// add scores one case's found claims against its expectations.
func (r *Report) add(c *Case, found []verify.Claim) {
	if r.ByGroup == nil {
		r.ByGroup, r.ByLang = map[string]*Score{}, map[string]*Score{}
	}
	if c.falseClaims() {
		r.WithFalse++
	}
	used := make([]bool, len(found))
	wrongFail := false
	for _, e := range c.Expect {
		got, text := "missing", ""
		// A claim the check decided is matched before one it left
		// unchecked: "added 10 lines, now 60 lines" has an unchecked
		// change and the claim of the total the expectation means. A
		// decided claim that no expectation takes still counts below.
		for _, decided := range []bool{true, false} {
			for i, f := range found {
				if used[i] || got != "missing" || f.Kind != e.Kind || (e.Path != "" && f.Path != e.Path) || decided && f.Verdict == verify.ClaimUnchecked {
					continue
				}
				used[i], got, text = true, string(f.Verdict), f.Text
			}
		}
		s := Score{}
		switch e.Verdict {
		case "false":
			s.False = 1
			if got == "false" {
				s.Caught = 1
			}
		case "true":
			s.True = 1
			switch got {
			case "true":
				s.Confirmed = 1
			case "false":
				s.FalseFails, wrongFail = 1, true
			}
		case "unchecked":
			s.Unchecked = 1
			switch got {
			case "false":
				s.FalseFails, wrongFail = 1, true
			default:
				s.Held = 1
			}
		}
		r.score(c, kinds[e.Kind], s)
		r.Results = append(r.Results, Result{Case: c.Name, Lang: c.Lang, Kind: e.Kind, Path: e.Path, Want: e.Verdict, Got: got, Text: text})
	}
	for i, f := range found {
		if used[i] {
			continue
		}
		if f.Verdict == verify.ClaimFalse {
			// A claim nobody expected, failed: the answer does not make it.
			r.score(c, kinds[f.Kind], Score{FalseFails: 1})
			wrongFail = true
		}
		r.Results = append(r.Results, Result{Case: c.Name, Lang: c.Lang, Kind: f.Kind, Path: f.Path, Got: string(f.Verdict), Text: f.Text})
	}
	if wrongFail && !c.falseClaims() {
		r.FalseFailCases++
	}
}

func (r *Report) score(c *Case, group string, s Score) {
	if group == "" {
		group = "other"
	}
	for _, m := range []struct {
		scores map[string]*Score
		key    string
	}{{r.ByGroup, group}, {r.ByLang, c.Lang}} {
		if m.scores[m.key] == nil {
			m.scores[m.key] = &Score{}
		}
		m.scores[m.key].add(s)
	}
	r.All.add(s)
}

func (r *Report) finish() {
	if r.ByGroup == nil {
		r.ByGroup, r.ByLang = map[string]*Score{}, map[string]*Score{}
	}
	for _, g := range Groups {
		if r.ByGroup[g] == nil {
			r.ByGroup[g] = &Score{}
		}
	}
}

// WriteText writes the report as a person reads it: the scores by group
// and language, the cases without a false claim that the check failed,
// and every finding that differs from its expectation.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "claims eval · %s (%d with a false claim, %d without) · no model\n\n", cases(r.Cases), r.WithFalse, r.Cases-r.WithFalse)
	tw := tabwriter.NewWriter(&b, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "claims\tfalse\tcaught\tfalse FAIL\tprecision\trecall\ttrue confirmed\tunchecked held")
	row := func(name string, s Score) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.2f\t%.2f\t%d/%d\t%d/%d\n", name, s.False, s.Caught, s.FalseFails, s.Precision(), s.Recall(), s.Confirmed, s.True, s.Held, s.Unchecked)
	}
	for _, g := range Groups {
		row(g, *r.ByGroup[g])
	}
	if s, ok := r.ByGroup["other"]; ok {
		row("other", *s)
	}
	langs := make([]string, 0, len(r.ByLang))
	for l := range r.ByLang {
		langs = append(langs, l)
	}
	slices.Sort(langs)
	for _, l := range langs {
		row("lang "+l, *r.ByLang[l])
	}
	row("all", r.All)
	tw.Flush()
	fmt.Fprintf(&b, "\nFalse FAILs on the %s without a false claim: %d.\n", cases(r.Cases-r.WithFalse), r.FalseFailCases)
	var off []Result
	for _, res := range r.Results {
		if res.Want != res.Got && !(res.Want == "unchecked" && res.Got == "true") && !(res.Want == "" && res.Got != "false") {
			off = append(off, res)
		}
	}
	if len(off) > 0 {
		fmt.Fprintf(&b, "\nDiffering from the expectation (%d):\n", len(off))
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, res := range off {
			want := res.Want
			if want == "" {
				want = "(no claim)"
			}
			fmt.Fprintf(tw, "  %s\t%s %s\twant %s, got %s\t%q\n", res.Case, res.Kind, res.Path, want, res.Got, res.Text)
		}
		tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cases is "1 case", "93 cases".
func cases(n int) string {
	if n == 1 {
		return "1 case"
	}
	return fmt.Sprintf("%d cases", n)
}
