package verify

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// NoVerdict is the reason given when the judge's reply holds no verdict.
const NoVerdict = "the judge gave no verdict"

// noReason is the reason given for a FAIL that came without one.
const noReason = "the judge gave no reason"

// ParseVerdict reads the judge's reply. The verdict is its first non-empty
// line, trimmed, with markdown emphasis and heading marks (**PASS**,
// *PASS*, __PASS__, `PASS`, ## PASS) and a leading "Verdict:" removed. That
// line passes only if it starts with the word PASS standing alone: followed
// by nothing, whitespace or punctuation ("PASS.", "PASS - ok"), so that
// "PASSABLE" is not PASS. The word is matched without regard to case, since
// a judge that writes "Pass." means it; FAIL is read the same way. The
// reason is the rest of the verdict line, or the next non-empty line when
// that is empty. Anything else fails with NoVerdict: silence is not consent.
func ParseVerdict(reply string) (pass bool, reason string) {
	lines := strings.Split(strings.ReplaceAll(reply, "\r\n", "\n"), "\n")
	first := -1
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			first = i
			break
		}
	}
	if first < 0 {
		return false, NoVerdict
	}
	line := stripMarks(lines[first])
	if len(line) >= len("verdict:") && strings.EqualFold(line[:len("verdict:")], "verdict:") {
		line = stripMarks(line[len("verdict:"):])
	}
	var word string
	for _, w := range []string{"PASS", "FAIL"} {
		if len(line) >= len(w) && strings.EqualFold(line[:len(w)], w) && wordEnds(line[len(w):]) {
			word = w
			break
		}
	}
	if word == "" {
		return false, NoVerdict
	}
	reason = cleanReason(line[len(word):])
	if reason == "" {
		for _, l := range lines[first+1:] {
			if reason = cleanReason(l); reason != "" {
				break
			}
		}
	}
	if word == "FAIL" && reason == "" {
		reason = noReason
	}
	return word == "PASS", reason
}

// emphasis is the set of markdown marks a model wraps a verdict in.
const emphasis = "*_`#> \t"

// stripMarks trims whitespace and leading markdown marks; the marks after
// the verdict word are left to wordEnds and cleanReason.
func stripMarks(s string) string {
	return strings.TrimLeft(strings.TrimSpace(s), emphasis)
}

// wordEnds reports whether the text after a verdict word leaves the word
// standing alone: nothing, whitespace, punctuation or an emphasis mark.
func wordEnds(rest string) bool {
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return unicode.IsSpace(r) || unicode.IsPunct(r) || strings.ContainsRune(emphasis, r)
}

// cleanReason trims the separators and marks between a verdict word and
// its reason ("PASS - all five steps", "**FAIL**: only three").
// Trailing bold or italic marks go too; backticks stay, since they may
// close a code span inside the reason.
func cleanReason(s string) string {
	s = strings.TrimLeft(strings.TrimSpace(s), emphasis+".:;,-–—)]|")
	return strings.TrimSpace(strings.TrimRight(s, "*_ \t"))
}
