package lazyregexp

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
)

// CheckNeeds verifies every Needs made so far against its pattern: it
// proves from the parsed pattern that each match holds one of the needs
// (see covered). A hint it cannot prove is an error, so a hint never
// hides a match.
func CheckNeeds() error {
	hintedMu.Lock()
	rs := append([]*Regexp(nil), hinted...)
	hintedMu.Unlock()
	var errs []string
	for _, r := range rs {
		if r.needs == nil {
			continue
		}
		if err := checkNeeds(r.src, r.needs); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if errs != nil {
		return fmt.Errorf("lazyregexp: %s", strings.Join(errs, "; "))
	}
	return nil
}

func checkNeeds(src string, needs []string) error {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return fmt.Errorf("%q: %w", src, err)
	}
	if !covered(re, needs) {
		return fmt.Errorf("%q: cannot show that each match holds one of %q", src, needs)
	}
	return nil
}

// maxClass is the most runes a character class may have to be read as
// its runes one by one.
const maxClass = 64

// covered reports whether every match of re is shown to hold one of
// needs: a literal that holds one; a small character class whose every
// rune is one; a concatenation with such a part; an alternation whose
// every branch is covered; a group or a repetition at least once of a
// covered pattern. Anything else (what may match the empty string, a
// wide class) is not shown, and so refused.
func covered(re *syntax.Regexp, needs []string) bool {
	holds := func(s string) bool {
		return slices.ContainsFunc(needs, func(n string) bool { return strings.Contains(s, n) })
	}
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			return holds(string(re.Rune))
		}
		// Without regard to case: each case of its first rune must be a
		// need of its own.
		r := re.Rune[0]
		for c := r; ; {
			if !holds(string(c)) {
				return false
			}
			if c = unicode.SimpleFold(c); c == r {
				return true
			}
		}
	case syntax.OpCharClass:
		n := 0
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if n += int(hi-lo) + 1; n > maxClass {
				return false
			}
			for c := lo; c <= hi; c++ {
				if !holds(string(c)) {
					return false
				}
			}
		}
		return n > 0
	case syntax.OpCapture, syntax.OpPlus:
		return covered(re.Sub[0], needs)
	case syntax.OpRepeat:
		return re.Min >= 1 && covered(re.Sub[0], needs)
	case syntax.OpConcat:
		return slices.ContainsFunc(re.Sub, func(sub *syntax.Regexp) bool { return covered(sub, needs) })
	case syntax.OpAlternate:
		return len(re.Sub) > 0 && !slices.ContainsFunc(re.Sub, func(sub *syntax.Regexp) bool { return !covered(sub, needs) })
	}
	return false
}
