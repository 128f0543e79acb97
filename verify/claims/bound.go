package claims

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// op is how a claimed figure bounds the real one.
type op int

const (
	exact   op = iota // "3,847 characters"
	about             // "about 4,000", "~4k", a round figure
	over              // "over 4,000", "more than"
	atLeast           // "at least 5", "5+", "4000字以上"
	under             // "under 500", "fewer than"
	atMost            // "at most 500", "up to"
	between           // "3,000–4,000", "between 10 and 20"
)

// bound is a claimed figure with the way it bounds the real one.
type bound struct {
	op     op
	n, hi  float64 // hi only for between
	approx bool    // an exact figure written as an estimate reads as about
}

// holds reports whether the measured m satisfies b, with tol the
// fraction an approximate figure may be off (and at least 1).
func (b bound) holds(m, tol float64) bool {
	switch b.effective() {
	case exact:
		return m == b.n
	case about:
		return math.Abs(m-b.n) <= math.Max(b.n*tol, 1)
	case over:
		return m > b.n
	case atLeast:
		return m >= b.n
	case under:
		return m < b.n
	case atMost:
		return m <= b.n
	case between:
		return m >= b.n && m <= b.hi
	}
	return false
}

func (b bound) effective() op {
	if b.op == exact && b.approx {
		return about
	}
	return b.op
}

// said is the claimed figure in words: "3,847", "about 4,000", "over
// 4,000", "between 10 and 20".
func (b bound) said() string {
	n := group(b.n)
	switch b.effective() {
	case about:
		return "about " + n
	case over:
		return "over " + n
	case atLeast:
		return "at least " + n
	case under:
		return "under " + n
	case atMost:
		return "at most " + n
	case between:
		return "between " + n + " and " + group(b.hi)
	}
	return n
}

// one reports whether the claimed figure is one ("1 line", "at most 1
// line"), for the unit's number.
func (b bound) one() bool { return b.n == 1 && b.op != between }

// group writes a figure with thousands separators: 3847 is "3,847".
func group(f float64) string {
	if f != math.Trunc(f) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatInt(int64(f), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// countOf puts a unit after a count: "1 line", "3,341 lines".
func countOf(n int, unit string) string {
	return fmt.Sprintf("%s %s", group(float64(n)), pluralUnit(n == 1, unit))
}

// pluralUnit is unit for one of it, else its plural; units are kept in
// the plural.
func pluralUnit(one bool, unit string) string {
	if !one {
		return unit
	}
	switch {
	case strings.HasSuffix(unit, "ies"):
		return strings.TrimSuffix(unit, "ies") + "y"
	case strings.HasSuffix(unit, "ches"), strings.HasSuffix(unit, "shes"), strings.HasSuffix(unit, "sses"):
		return strings.TrimSuffix(unit, "es")
	case strings.HasSuffix(unit, "s") && !strings.HasSuffix(unit, "ss"):
		return strings.TrimSuffix(unit, "s")
	}
	return unit
}
