package claims

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
)

// count is a figure with a unit in a sentence: "about 4,000 characters",
// "all 5 steps", "120 行".
type count struct {
	// start and end span the claim in the sentence's text: qualifier,
	// figure, unit; at is the figure's own offset.
	start, end, at int
	b              bound
	// kind is chars, words, lines, bytes or items; "" for another noun,
	// which only the task can make countable ("5 risks").
	kind string
	// noun is the counted thing as the answer names it ("steps",
	// "rows", "步骤"); unit is how a message names it.
	noun, unit   string
	zi, noSpaces bool
	// mult scales the figure (a KB is 1,000 bytes); pre is a bound the
	// unit itself carries ("3000多字" is over 3,000), none if zero.
	mult float64
	pre  op
	// why, when set, says why the figure is no size of a file though it
	// has a unit: a change ("added 12 lines"), a part ("80 characters
	// per line"), a limit ("the 4,000-character minimum"). Such a figure
	// is never checked against a file.
	why string
	// attr is true for a figure glued to its unit by a dash, as an
	// adjective: "a 12-line table", "the 600-line utils.go". The size is
	// of the noun after it.
	attr bool
}

// Why a figure with a unit is no file's size.
const (
	whyChange = "a change, not the size of the file"
	whyPart   = "a size of a part, not of the file"
	whyLimit  = "the task's figure, not the file's"
	whyBefore = "the size before, not now"
)

// unitWords maps an English unit (its plural) to its kind.
var unitWords = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"characters": kindChars, "chars": kindChars, "code points": kindChars,
		"words": kindWords,
		"lines": kindLines, "loc": kindLines,
		"bytes": kindBytes,
		"items": kindItems, "entries": kindItems, "rows": kindItems, "records": kindItems, "steps": kindItems,
		"bullets": kindItems, "bullet points": kindItems, "list items": kindItems,
	}
})

// stopWords may not stand between a figure and its unit.
var stopWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"of": true, "in": true, "to": true, "from": true, "for": true, "with": true, "per": true, "each": true,
		"and": true, "or": true, "the": true, "a": true, "an": true, "on": true, "at": true, "by": true, "than": true,
		"is": true, "are": true, "was": true, "were": true, "has": true, "have": true, "it": true, "that": true,
		"this": true, "these": true, "those": true, "its": true, "out": true, "into": true, "as": true,
	}
})

// deltaWords between a figure and its unit make it a change, not a size:
// "200 more words", "3 new rows".
var deltaWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"more": true, "fewer": true, "less": true, "new": true, "extra": true, "additional": true, "other": true,
		"further": true, "missing": true, "remaining": true, "changed": true, "modified": true, "added": true,
		"removed": true, "deleted": true, "inserted": true, "empty": true, "blank": true, "long": true,
		"longest": true, "shortest": true, "first": true, "last": true, "duplicate": true, "unique": true,
	}
})

var (
	wordRe = lazyregexp.New(`^[\s\-]*([A-Za-z][A-Za-z'’]*)`)
	// leftQualRe finds a qualifier just before a figure.
	leftQualRe = lazyregexp.New(`(?i)(?:(?:^|[^\p{L}])(about|around|approximately|approx\.?|roughly|some|circa|ca\.|nearly|almost|close to|just under|just over|just shy of|an estimated|estimated|over|more than|above|exceeding|in excess of|upwards of|north of|greater than|at least|no less than|no fewer than|not less than|not fewer than|a minimum of|minimum of|under|less than|fewer than|below|at most|no more than|not more than|up to|a maximum of|maximum of|within|exactly|precisely|a total of|total of|only|all|just)|(~|≈|>=|≥|<=|≤|>|<|约|大约|大概|将近|近|差不多|约为|约有|超过|多于|逾|高于|至少|不少于|不低于|不到|少于|低于|不足|最多|不超过|不多于|正好|恰好|整整))\s*$`)
	// positionLeftRe finds what makes a figure a position or a name, no
	// claim at all: "line 42", "at 80", "version 2", "issue #128", "第 12 行".
	positionLeftRe = lazyregexp.New(`(?i)(?:^|[^\p{L}])(?:at|line|lines|row|rows|step|item|entry|column|page|version|v|issue|pr|#)\s*$|第\s*$`)
	// totalAtRe is an "at" of a total, not a position: "comes in at",
	// "stands at".
	totalAtRe = lazyregexp.New(`(?i)\b(?:comes?|coming|came|clocks?|clocking|weighs?|weighing)\s+in\s+at\s*$|\b(?:stands?|sits?|now|is|are|currently)\s+at\s*$`)
	// changeLeftRe finds what makes a figure a change, a part, a limit
	// or the size before: "added 12", "by 500", "from 5,000", "each 80",
	// "the first 20": a claim, but not of the file's size.
	changeLeftRe = lazyregexp.New(`(?i)(?:^|[^\p{L}])(?:by|from|added|adding|add|removed|removing|remove|cut|cutting|trimmed|trimming|deleted|deleting|dropped|another|an extra|extra|additional|a further|each|per|every|first|last|max|min|limit|[+\-±])\s*$`)
	// limitRe finds the words that make a figure the task's, near it.
	limitRe     = lazyregexp.New(`(?i)\b(?:require[sd]?|requirement|requested|minimum|maximum|target|targets|limit|limits|goal|asked|spec|brief|threshold|cap|budget|quota|allowed|allowance|needed|wanted|expected|must|aim)\b|要求|目标|限制|上限|下限|最少|最低|规定`)
	rightQualRe = lazyregexp.New(`(?i)^\s*(?:(or so|or thereabouts|give or take)|(or more|or above|or over|plus)|(or fewer|or less|or under)|(以上)|(以下|以内)|(左右|上下))`)
	// cjkUnitRe reads a Chinese unit after a figure.
	cjkUnitRe = lazyregexp.New(`^\s*(多|余|来|\+)?\s*(个字符|字符|个字|字节|字|个单词|单词|个词|词|行|个步骤|步骤|步|条目|个条目|条|项|个)`)
	cjkNounRe = lazyregexp.New(`^\p{Han}{1,4}`)
	// perPartRe, after a unit, makes the figure one of each part, a
	// change or a limit: "80 characters per line", "12 lines removed".
	perPartRe = lazyregexp.New(`^\s*(?:each|apiece|a piece|per\b|a line|on average|wide\b|max\b|at most\b|removed|deleted|added|inserted|changed|dropped|cut\b|trimmed|skipped|filtered|merged|deduplicated|fixed|updated|rewritten|edited|touched|affected|modified|were\b|was\b|more\b|less\b|fewer\b|too\b|short\b|of (?:context|output|log)|每)`)
	// sizeAfterRe, after the unit of a size, makes it a comparison, a
	// change or a part's: "80 lines shorter", "12 lines of summary", "40
	// lines moved from", "12 lines in its summary", "200 字的引言".
	sizeAfterRe = lazyregexp.New(`^\s*(?:moved|copied|taken|extracted|shorter|longer|bigger|smaller|larger|from\b|that\b|which\b|i\b|we\b|over the\b|under the\b|of\b|in (?:its|each|every|one|this|that|the)\b|的)`)
	// fromFigureRe after a unit is the size before, and the figure the
	// size now: "600 words from about 1,100".
	fromFigureRe  = lazyregexp.New(`^\s*from\s+(?:about\s+|around\s+|roughly\s+|~)?\d`)
	changeAfterRe = lazyregexp.New(`(?:removed|deleted|added|inserted|changed|dropped|cut|trimmed|skipped|filtered|merged|deduplicated|fixed|updated|rewritten|edited|touched|affected|modified|moved|copied|more|less|fewer|shorter|longer|bigger|smaller|larger|changes|diff|new)`)
	ofTheRe       = lazyregexp.New(`^\s+of\s+(?:the\s+|all\s+)?$`)
	fromRe        = lazyregexp.New(`(?i)\bfrom\s*$`)
	betweenRe     = lazyregexp.New(`(?i)\bbetween\s*$`)
	bytesRe       = lazyregexp.New(`^\s?(B|KB|kB|KiB|MB|MiB)\b`)
	noSpaceRe     = lazyregexp.New(`^\s*\(?(?:excluding|without|not counting|sans|no)\s+(?:spaces|whitespace)|^\s*[(（]?(?:不含|不计|不算)(?:空格|空白)`)
)

// findCounts returns the figures with units in s: the units of a size
// (characters, lines, steps, 字), and any other noun wanted reports
// countable ("5 risks" when the task asked for risks).
func findCounts(s *sentence, wanted func(noun string) bool) []count {
	text := s.text
	nums := findNumbers(text)
	var out []count
	skip := map[int]bool{}
	for i, n := range nums {
		if skip[i] {
			continue
		}
		c, ok := unitAfter(text, n)
		if ok && c.kind == "" && (wanted == nil || !wanted(c.noun)) {
			continue
		}
		if !ok {
			// "3 of the 5 steps": the figure before "of" is the claim, with
			// the unit after the second.
			if i+1 < len(nums) {
				between := strings.ToLower(text[n.end:nums[i+1].start])
				if ofTheRe.MatchString(between) {
					if c2, ok2 := unitAfter(text, nums[i+1]); ok2 {
						c = c2
						c.start, c.at = n.start, n.start
						c.b = bound{op: exact, n: n.value * c.mult}
						skip[i+1] = true
						ok = true
					}
				}
			}
			if !ok {
				continue
			}
		} else {
			c.b = bound{op: exact, n: n.value * c.mult, approx: n.round || c.mult > 1 || roundFigure(n.value)}
			if c.pre != exact {
				c.b.op = c.pre
			}
		}
		clause := s.clauseAt(c.at)
		left := text[:c.start]
		// A range: "3,000–4,000 characters", "between 10 and 20 lines".
		if i > 0 && !skip[i-1] {
			prev := nums[i-1]
			gap := text[prev.end:n.start]
			if rangeGap(gap) && prev.end <= c.start {
				before := strings.ToLower(text[:prev.start])
				if !fromRe.MatchString(before) || strings.TrimSpace(gap) == "and" {
					c.b = bound{op: between, n: prev.value, hi: n.value}
					c.start = prev.start
					if m := betweenRe.FindStringIndex(text[:prev.start]); m != nil {
						c.start = m[0]
					}
					left = text[:c.start]
				} else if !strings.EqualFold(strings.TrimSpace(gap), "to") {
					continue
				}
			}
		}
		if c.b.op != between {
			// Qualifiers are short: only the end of what comes before is
			// read.
			cut := tail(left, 48)
			if m := leftQualRe.FindStringSubmatchIndex(cut); m != nil {
				m = shift(m, len(left)-len(cut))
				g := 2
				if m[2] < 0 {
					g = 4
				}
				q := strings.ToLower(left[m[g]:m[g+1]])
				c.b.op, c.b.approx = qualifierOp(q, c.b)
				c.start = m[g]
				left = text[:c.start]
			}
			if positionLeftRe.MatchString(tail(left, 32)) && !totalAtRe.MatchString(tail(left, 32)) {
				continue
			}
			if m := changeLeftRe.FindStringSubmatch(tail(left, 32)); m != nil && c.why == "" {
				c.why = whyChange
				switch w := strings.ToLower(strings.TrimSpace(strings.TrimLeft(m[0], " ,.;:(\t"))); w {
				case "each", "per", "every", "first", "last":
					c.why = whyPart
				case "max", "min", "limit":
					c.why = whyLimit
				case "from":
					c.why = whyBefore
				}
			}
		}
		// A figure inside a version or a path is no size; one glued to a
		// sign is a change ("+42 lines").
		if r, _ := utf8.DecodeLastRuneInString(text[:c.at]); c.at > 0 && strings.ContainsRune("/#v$", r) {
			continue
		} else if c.at > 0 && strings.ContainsRune("+-±", r) && c.why == "" {
			c.why = whyChange
		}
		if strings.HasPrefix(strings.TrimSpace(text[n.end:]), "/") || strings.HasPrefix(strings.TrimSpace(text[n.end:]), "%") {
			continue
		}
		// The task's figure, not the result's: "the 4,000-character
		// minimum", "required 4,000 words".
		near := text[max(clause[0], wordsBack(text, c.start, 4)):max(c.end, min(clause[1], wordsForward(text, c.end, 2)))]
		if limitRe.MatchString(near) && c.why == "" {
			c.why = whyLimit
		}
		if m := rightQualRe.FindStringSubmatchIndex(text[c.end:]); m != nil && c.b.op == exact {
			switch {
			case m[2] >= 0, m[12] >= 0:
				c.b.op = about
			case m[4] >= 0, m[8] >= 0:
				c.b.op = atLeast
			case m[6] >= 0, m[10] >= 0:
				c.b.op = atMost
			}
			c.end += m[1]
		}
		// "each", "per line", "a piece" after it: the figure is per part.
		after := strings.ToLower(text[c.end:min(len(text), c.end+24)])
		m := perPartRe.FindString(after)
		if m == "" && c.kind != "" {
			m = sizeAfterRe.FindString(after)
		}
		if m != "" && c.why == "" && !fromFigureRe.MatchString(after) {
			c.why = whyPart
			if changeAfterRe.MatchString(m) {
				c.why = whyChange
			}
		}
		out = append(out, c)
	}
	return out
}

// tail is the end of s, at most n bytes, cut on a character boundary.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// shift moves the offsets of a match by off (-1 stays -1).
func shift(m []int, off int) []int {
	out := make([]int, len(m))
	for i, v := range m {
		out[i] = v
		if v >= 0 {
			out[i] = v + off
		}
	}
	return out
}

// roundFigure reports a figure a person writes as an estimate: a
// hundred or a multiple of it ("4,000 characters", "a 300-word summary").
func roundFigure(v float64) bool {
	return v >= 100 && v == float64(int64(v)) && int64(v)%100 == 0
}

// rangeGap reports whether gap joins two figures into a range.
func rangeGap(gap string) bool {
	switch strings.ToLower(strings.TrimSpace(gap)) {
	case "-", "–", "—", "~", "～", "to", "and", "至", "到":
		return true
	}
	return false
}

// qualifierOp turns a qualifier into how the figure bounds.
func qualifierOp(q string, b bound) (op, bool) {
	switch q {
	case "about", "around", "approximately", "approx", "approx.", "roughly", "some", "circa", "ca.", "nearly", "almost",
		"close to", "just under", "just over", "just shy of", "an estimated", "estimated", "~", "≈",
		"约", "大约", "大概", "近", "将近", "差不多", "约为", "约有":
		return about, false
	case "over", "more than", "above", "exceeding", "in excess of", "upwards of", "north of", "greater than", ">",
		"超过", "多于", "逾", "高于":
		return over, false
	case "at least", "no less than", "no fewer than", "not less than", "not fewer than", "a minimum of", "minimum of",
		">=", "≥", "至少", "不少于", "不低于":
		return atLeast, false
	case "under", "less than", "fewer than", "below", "<", "不到", "少于", "低于", "不足":
		return under, false
	case "at most", "no more than", "not more than", "up to", "a maximum of", "maximum of", "within", "<=", "≤",
		"最多", "不超过", "不多于":
		return atMost, false
	case "exactly", "precisely", "正好", "恰好", "整整":
		return exact, false
	}
	return b.op, b.approx
}

// unitAfter reads the unit after the figure n: "characters", "install
// steps", "字", "个步骤", or another noun.
func unitAfter(text string, n number) (count, bool) {
	rest := text[n.end:]
	c := count{start: n.start, at: n.start, mult: 1}
	if m := cjkUnitRe.FindStringSubmatchIndex(rest); m != nil && !n.decimal {
		u := rest[m[4]:m[5]]
		c.end = n.end + m[1]
		if m[2] >= 0 {
			c.pre = over
			if rest[m[2]:m[3]] == "+" {
				c.pre = atLeast
			}
		}
		switch u {
		case "个字符", "字符", "个字", "字":
			c.kind, c.noun, c.unit, c.zi = kindChars, u, "characters", u == "字" || u == "个字"
		case "字节":
			c.kind, c.noun, c.unit = kindBytes, u, "bytes"
		case "个单词", "单词", "个词", "词":
			c.kind, c.noun, c.unit = kindWords, u, "words"
		case "行":
			c.kind, c.noun, c.unit = kindLines, u, "lines"
		case "个步骤", "步骤", "步":
			c.kind, c.noun, c.unit = kindItems, "步骤", "steps"
		default: // 条, 项, 个, 条目: the noun follows
			noun := cjkNounRe.FindString(rest[m[1]:])
			c.end += len(noun)
			c.kind, c.noun, c.unit = "", noun, "items"
			if noun == "" || u == "条目" || u == "个条目" {
				c.kind = kindItems
			}
		}
		return c, true
	}
	// English: up to two words before a unit; the first word is the noun
	// when no unit follows.
	if strings.HasPrefix(rest, "-") && !strings.HasPrefix(rest, "--") {
		rest = " " + rest[1:] // "3,847-character"
		c.attr = true
	}
	if strings.HasPrefix(rest, "+") {
		rest, c.pre = " "+rest[1:], atLeast // "5+ lines"
	}
	off := n.end
	var words []string
	var ends []int
	r := rest
	for range 3 {
		m := wordRe.FindStringSubmatchIndex(r)
		if m == nil {
			break
		}
		words = append(words, strings.ToLower(r[m[2]:m[3]]))
		ends = append(ends, off+m[3])
		off += m[1]
		r = r[m[1]:]
	}
	// Bytes glued to the figure: "512B", "12 KB".
	if m := bytesRe.FindStringSubmatch(text[n.end:]); m != nil {
		c.kind, c.noun, c.unit, c.end = kindBytes, "bytes", "bytes", n.end+len(m[0])
		switch m[1] {
		case "KB", "kB", "KiB":
			c.mult = 1000
		case "MB", "MiB":
			c.mult = 1e6
		}
		return c, true
	}
	for i, w := range words {
		if stopWords()[w] || deltaWords()[w] {
			if i == 0 && deltaWords()[w] {
				// "3 new rows", "200 more words": a change or a part, with
				// the unit after it.
				if i+1 < len(words) {
					if k, ok := unitWords()[plural(words[i+1])]; ok && !n.decimal {
						c.kind, c.noun, c.unit, c.end, c.why = k, plural(words[i+1]), plural(words[i+1]), ends[i+1], whyChange
						if !changeAfterRe.MatchString(w) && w != "new" && w != "extra" && w != "additional" && w != "further" {
							c.why = whyPart
						}
						return c, true
					}
				}
				return count{}, false
			}
			break
		}
		two := ""
		if i+1 < len(words) {
			two = w + " " + words[i+1]
		}
		if k, ok := unitWords()[two]; ok && two != "" {
			c.kind, c.noun, c.unit, c.end = k, two, two, ends[i+1]
			break
		}
		if k, ok := unitWords()[plural(w)]; ok {
			c.kind, c.noun, c.unit, c.end = k, plural(w), plural(w), ends[i]
			break
		}
		if i == 0 {
			// Another noun, for the task to make countable.
			c.noun, c.unit, c.end = plural(w), plural(w), ends[0]
		}
	}
	if c.noun == "" || n.decimal {
		// "3.5 lines" is no count of lines.
		return count{}, false
	}
	if c.kind == kindLines && strings.HasPrefix(strings.ToLower(text[c.end:]), " of code") {
		c.end += len(" of code")
	}
	if c.kind == kindChars {
		tail := strings.ToLower(text[c.end:min(len(text), c.end+40)])
		c.noSpaces = noSpaceRe.MatchString(tail)
	}
	return c, true
}

// plural is an English noun in the plural, as the unit table keeps it.
func plural(w string) string {
	switch {
	case w == "loc" || strings.HasSuffix(w, "s"):
		return w
	case w == "entry":
		return "entries"
	case strings.HasSuffix(w, "y") && len(w) > 2 && !strings.ContainsRune("aeiou", rune(w[len(w)-2])):
		return w[:len(w)-1] + "ies"
	case strings.HasSuffix(w, "ch") || strings.HasSuffix(w, "sh") || strings.HasSuffix(w, "x"):
		return w + "es"
	}
	return w + "s"
}

// wordsBack returns the offset n words before i in s.
func wordsBack(s string, i, n int) int {
	for n > 0 && i > 0 {
		for i > 0 && s[i-1] == ' ' {
			i--
		}
		for i > 0 && s[i-1] != ' ' {
			_, size := utf8.DecodeLastRuneInString(s[:i])
			i -= size
		}
		n--
	}
	return i
}

// wordsForward returns the offset n words after i in s.
func wordsForward(s string, i, n int) int {
	for n > 0 && i < len(s) {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		for i < len(s) && s[i] != ' ' {
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.Is(unicode.Han, r) {
				// Chinese has no spaces: a character is a word.
				i += size
				break
			}
			i += size
		}
		n--
	}
	return i
}
