package claims

import (
	"strings"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
)

// kindAnswerItems is the answer's own count of what the task asked for.
const kindAnswerItems = "answer-items"

// ask is a count the task asks for: "list 5 risks", "列出5个想法".
type ask struct {
	n    float64
	noun string // plural English, or the Chinese noun ("" for any)
}

var (
	askVerbRe = lazyregexp.New(`(?i)\b(?:list|give|name|suggest|provide|propose|write|generate|answer|come up with|brainstorm|outline|share|offer|recommend|identify|find|pick|choose|select|draft|produce|return|enumerate|describe|explain|summari[sz]e|create|make|compile|collect|prepare|show|draw up|jot down|put together|think of|include|add|with|containing|top)\s+(?:me\s+|us\s+)?(?:a\s+list\s+of\s+|exactly\s+|at\s+least\s+|the\s+(?:top\s+)?|some\s+|your\s+|top\s+)?$`)
	// numberedHeadingRe finds an item written as a heading: "### 1.
	// Cache the index", "**2) Batch the writes**".
	numberedHeadingRe = lazyregexp.New(`^(?:#{1,6}\s*|\*\*)(?:\d{1,3}[.):]|[一二三四五六七八九十]+、)`)
	hanRe             = lazyregexp.New(`^\p{Han}+$`)
	askCJKRe          = lazyregexp.New(`(?:列出|给出|写出|提供|列举|想出|给我|写|列|提出|总结|推荐|说出|整理|包含|包括)(?:一下)?\s*$`)
)

// taskAsks reads the counts the task asks for.
func taskAsks(task string) []ask {
	var out []ask
	for _, s := range splitSentences(task) {
		for _, c := range findCounts(&s, func(string) bool { return true }) {
			if c.why != "" {
				continue // "5 more risks" asks for no list of 5
			}
			before := s.text[:c.start]
			noun := c.noun
			switch {
			case askVerbRe.MatchString(before):
			case askCJKRe.MatchString(before):
			default:
				continue
			}
			if c.kind != "" && c.kind != kindItems {
				continue // "write 4,000 characters" is a file's size, not a list
			}
			out = append(out, ask{n: c.b.n, noun: noun})
		}
	}
	return out
}

// asked returns what the task asks for that a count of noun claims, if
// any.
func (x *checker) asked(noun string) (ask, bool) {
	for _, a := range x.asks {
		if sameNoun(a.noun, noun) {
			return a, true
		}
	}
	return ask{}, false
}

// sameNoun reports whether two nouns name the same things: "risks" and
// "risk", "想法" and "个想法", a bare 条 and any.
func sameNoun(a, b string) bool {
	a, b = strings.ToLower(strings.TrimSpace(a)), strings.ToLower(strings.TrimSpace(b))
	if a == "" || b == "" {
		return false
	}
	if plural(a) == plural(b) {
		return true
	}
	// Chinese names a kind of thing by its last characters: 产品想法 are
	// 想法.
	a, b = strings.TrimPrefix(a, "个"), strings.TrimPrefix(b, "个")
	if a == "" || b == "" || !hanRe.MatchString(a) || !hanRe.MatchString(b) {
		return false
	}
	return strings.HasSuffix(a, b) || strings.HasSuffix(b, a)
}

// answerItems returns the ways of counting the answer's own items: its
// top-level list items, numbered or not, and its numbered headings.
func answerItems(answer string) []int {
	var numbered, bullets, headings, topNumbered, topBullets int
	minIndent := -1
	inFence := false
	var indents []struct {
		n    int
		kind byte
	}
	for l := range strings.SplitSeq(answer, "\n") {
		if fenceRe.MatchString(l) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if m := numberedRe.FindStringSubmatch(l); m != nil {
			numbered++
			indents = append(indents, struct {
				n    int
				kind byte
			}{len(m[1]), 'n'})
			minIndent = minOf(minIndent, len(m[1]))
		} else if m := bulletRe.FindStringSubmatch(l); m != nil {
			bullets++
			indents = append(indents, struct {
				n    int
				kind byte
			}{len(m[1]), 'b'})
			minIndent = minOf(minIndent, len(m[1]))
		}
		if numberedHeadingRe.MatchString(l) {
			headings++
		}
	}
	for _, in := range indents {
		if in.n == minIndent {
			if in.kind == 'n' {
				topNumbered++
			} else {
				topBullets++
			}
		}
	}
	var out []int
	for _, n := range []int{topNumbered + topBullets, topNumbered, topBullets, headings, numbered, bullets, numbered + bullets} {
		if n > 0 {
			out = append(out, n)
		}
	}
	return out
}

func minOf(a, b int) int {
	if a < 0 || b < a {
		return b
	}
	return a
}

// answerClaim checks the answer's count of the items the task asked for
// against the items it lists.
func (x *checker) answerClaim(s *sentence, c count) {
	cl := x.claim(s, kindAnswerItems, c.start, c.end)
	unit := c.unit
	if unit == "items" && c.noun != "" && c.noun != "items" {
		unit = c.noun
	}
	cl.Said = c.b.said() + " " + pluralUnit(c.b.one(), unit)
	counts := answerItems(x.in.Answer)
	if len(counts) == 0 {
		x.unchecked(cl, "the answer has no list to count")
		return
	}
	for _, n := range counts {
		if c.b.holds(float64(n), x.tol) {
			cl.Measured = countOf(n, unit)
			x.truth(cl)
			return
		}
	}
	cl.Measured = countOf(counts[0], unit)
	x.falsity(cl, "you said the answer has "+cl.Said+"; it lists "+group(float64(counts[0])),
		"the answer lists "+countOf(counts[0], unit)+", not "+c.b.said())
}
