package verify

import (
	"strings"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
)

// NoVerdict is the reason given when the judge's reply holds no verdict,
// even when asked twice.
const NoVerdict = "the judge gave no verdict"

// noReason is the reason given for a FAIL that came without one.
const noReason = "the judge gave no reason"

// verdictLine is what the first non-empty line of a judge's reply must
// be, once its Markdown emphasis and a leading "Verdict:" are stripped:
// the word PASS or FAIL alone, or followed by punctuation and a reason.
// "PASS/FAIL: FAIL", "Pass or fail: FAIL", "PASS? No. FAIL" and "Pass
// rate 2/5 - FAIL" are not verdicts.
var verdictLine = lazyregexp.New(`(?i)^(PASS|FAIL)(\s*[.!:;,–—-]\s*(.*))?$`)

// emphasis holds the Markdown marks a model wraps a verdict in, with the
// heading and quote marks that may start its line.
const emphasis = "*_`#> \t"

// ParseVerdict reads the judge's reply. pass is true only for a PASS
// verdict (see ReadVerdict); a reply without a verdict fails with the
// reason NoVerdict: silence is not consent.
func ParseVerdict(reply string) (pass bool, reason string) {
	pass, reason, ok := ReadVerdict(reply)
	if !ok {
		return false, NoVerdict
	}
	return pass, reason
}

// ReadVerdict reads the judge's reply strictly. Its first non-empty line,
// with Markdown emphasis (**PASS**, *PASS*, __PASS__, `PASS`, ## PASS)
// and a leading "Verdict:" stripped, must match
//
//	^(PASS|FAIL)(\s*[.!:;,–—-]\s*.*)?$
//
// without regard to case. The rest of that line and the lines after it
// are the reason; a FAIL without one gets "the judge gave no reason". ok
// is false for anything else: a malformed verdict, which the Judge asks
// about once more before it counts as a FAIL.
func ReadVerdict(reply string) (pass bool, reason string, ok bool) {
	lines := strings.Split(strings.ReplaceAll(reply, "\r\n", "\n"), "\n")
	first := -1
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			first = i
			break
		}
	}
	if first < 0 {
		return false, "", false
	}
	line := strings.TrimLeft(strings.TrimSpace(lines[first]), emphasis)
	if len(line) >= len("verdict") && strings.EqualFold(line[:len("verdict")], "verdict") {
		rest := strings.TrimLeft(line[len("verdict"):], emphasis)
		if !strings.HasPrefix(rest, ":") {
			return false, "", false
		}
		line = strings.TrimLeft(rest[1:], emphasis)
	}
	if len(line) < 4 {
		return false, "", false
	}
	// The marks that close the emphasis around the word go too:
	// "**FAIL**: only three" reads as "FAIL: only three".
	word, after := line[:4], strings.TrimLeft(line[4:], "*_`")
	m := verdictLine.FindStringSubmatch(word + after)
	if m == nil {
		return false, "", false
	}
	parts := []string{cleanReason(m[3])}
	for _, l := range lines[first+1:] {
		parts = append(parts, cleanReason(l))
	}
	reason = strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
	pass = strings.EqualFold(m[1], "PASS")
	if !pass && reason == "" {
		reason = noReason
	}
	return pass, reason, true
}

// cleanReason trims the marks around a reason's line: emphasis that
// closes the verdict line ("**FAIL: only three**"), and list or quote
// marks that start a following line. Backticks stay, since they may
// close a code span inside the reason.
func cleanReason(s string) string {
	s = strings.TrimLeft(strings.TrimSpace(s), "*_#> \t")
	return strings.TrimSpace(strings.TrimRight(s, "*_ \t"))
}
