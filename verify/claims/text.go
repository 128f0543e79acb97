package claims

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
)

// sentence is one sentence of the answer, outside its code blocks.
type sentence struct {
	// start and end are its offsets in the answer; text is
	// answer[start:end].
	start, end int
	text       string
	// clauses are its parts between commas, semicolons, "and", "but",
	// brackets, as offsets into text, in order.
	clauses [][2]int
	// item is true for a list item; lead is the change verb of the
	// heading line above its list ("Files created:"), if any.
	item bool
	lead string
	// conditional is true for a sentence that opens with "if", "when",
	// "once": nothing in it is a claim about what happened.
	conditional bool
	question    bool
	// table holds the header cells of the Markdown table the sentence is
	// a row of, nil outside a table.
	table []string
}

// clauseAt returns the clause of s that holds offset i (relative to
// s.text).
func (s *sentence) clauseAt(i int) [2]int {
	for _, c := range s.clauses {
		if i >= c[0] && i < c[1] {
			return c
		}
	}
	if len(s.clauses) > 0 {
		return s.clauses[len(s.clauses)-1]
	}
	return [2]int{0, len(s.text)}
}

var (
	listItemRe = lazyregexp.New(`^\s*(?:[-*+•]|\d{1,3}[.)、]|[一二三四五六七八九十]+、)\s+`)
	fenceRe    = lazyregexp.New("^\\s*(?:```|~~~)").Needs("```", "~~~")
)

// splitSentences cuts the answer into sentences: at line ends, at a
// sentence's closing mark followed by a space, and at Chinese marks. Fenced
// code blocks are left out: what a code block says is code, not a claim.
func splitSentences(answer string) []sentence {
	var out []sentence
	inFence := false
	lead := ""
	// header is the first row of the table being read, nil outside one.
	var header []string
	for off := 0; off < len(answer); {
		nl := strings.IndexByte(answer[off:], '\n')
		lineEnd := len(answer)
		if nl >= 0 {
			lineEnd = off + nl
		}
		line := answer[off:lineEnd]
		next := lineEnd + 1
		row := !inFence && tableLineRe.MatchString(line)
		if !row {
			header = nil
		}
		switch {
		case row && header == nil:
			// A table's first row names its columns: no claim.
			header = tableCells(line)
		case row && tableSepRe.MatchString(line) && !strings.ContainsAny(strings.Trim(line, "|:- \t"), "0123456789"):
		case row:
			s := newSentence(answer, off, lineEnd)
			s.table = header
			out = append(out, s)
		case fenceRe.MatchString(line):
			inFence = !inFence
		case inFence:
		case strings.TrimSpace(line) == "":
			lead = ""
		default:
			item := listItemRe.MatchString(line)
			if !item {
				lead = ""
			}
			for _, sp := range sentenceSpans(line) {
				s := newSentence(answer, off+sp[0], off+sp[1])
				s.item = item
				if item {
					s.lead = lead
				}
				out = append(out, s)
			}
			if !item {
				if v := headingVerb(line); v != "" {
					lead = v
				}
			}
		}
		off = next
	}
	return out
}

// tableLineRe is a row of a Markdown table.
var tableLineRe = lazyregexp.New(`^\s*\|.*\|\s*$`).Needs("|")

// tableCells returns the cells of a table row, trimmed.
func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	cells := strings.Split(line, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// column returns the column of a table row's text that offset i is in.
func column(text string, i int) int {
	t := strings.TrimLeft(text[:i], " \t")
	t = strings.TrimPrefix(t, "|")
	return strings.Count(t, "|")
}

var (
	// sizeColumnRe names a column of sizes: "Lines", "Size", "字数".
	sizeColumnRe = lazyregexp.New(`(?i)^(?:size|sizes|lines?|loc|lines of code|words?|word count|chars?|characters?|length|rows?|entries|items?|steps?|bytes?|total|count|line count|行数|总行数|字数|总字数|大小|长度|行|字|篇幅)(?:\s*\([^)]*\))?$`)
)

// cellTotal reports, for a figure in a table row that is not in its
// file's cell, whether its column holds the files' sizes ("| File |
// Lines |"); known is false when the figure shares the file's cell.
// A column of changes ("Added", "Change") is no size.
func (s *sentence) cellTotal(c count, m mention) (ok, known bool) {
	col := column(s.text, c.at)
	if col == column(s.text, m.start) {
		return false, false
	}
	if col >= len(s.table) {
		return false, true
	}
	return sizeColumnRe.MatchString(strings.Trim(s.table[col], "*_` ")), true
}

// abbreviations end in a dot that does not end the sentence.
var abbreviations = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"e.g": true, "i.e": true, "etc": true, "vs": true, "approx": true, "ca": true, "no": true,
		"fig": true, "cf": true, "min": true, "max": true, "approx.": true, "mr": true, "dr": true,
	}
})

// sentenceSpans cuts one line into sentence spans.
func sentenceSpans(line string) [][2]int {
	var out [][2]int
	start := 0
	inCode := false
	cut := func(end int) {
		if strings.TrimSpace(line[start:end]) != "" {
			out = append(out, [2]int{start, end})
		}
		start = end
	}
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		switch {
		case r == '`':
			inCode = !inCode
		case inCode:
		case r == '。' || r == '！' || r == '？' || r == '；' || r == ';':
			cut(i + size)
		case r == '.' || r == '!' || r == '?':
			j := i + size
			for j < len(line) && (line[j] == '.' || line[j] == '!' || line[j] == '?' || line[j] == ')' || line[j] == '"' || line[j] == '*') {
				j++
			}
			if j == len(line) || line[j] == ' ' || line[j] == '\t' {
				// "e.g. this", "go test ./... passes": an abbreviation or a
				// path, not a sentence's end.
				keep := r == '.' && (abbreviations()[strings.ToLower(lastWord(line[start:i]))] || i > 0 && line[i-1] == '/' && j < len(line))
				if !keep {
					cut(j)
				}
				i = j
				continue
			}
		}
		i += size
	}
	cut(len(line))
	return out
}

// lastWord is the run of letters and dots that ends s.
func lastWord(s string) string {
	i := len(s)
	for i > 0 && (isLetterByte(s[i-1]) || s[i-1] == '.') {
		i--
	}
	return s[i:]
}

var (
	clauseRe = lazyregexp.New(`(?i),\s|，|、|：|:\s|\s(?:and|but|while|whereas|although|though|so|which|because|since|then)\s|\s[—–]\s|\s-\s|[()（）|]|但是|但|不过|而且|并且`)
	condRe   = lazyregexp.New(`(?i)^\W*(?:if|unless|when|whenever|once|until|before|as soon as|in case|should|could|would|can|will|do|does|did|is|are|have|has|如果|若|假如|一旦|等到|只要|要是)\b`)
)

// newSentence makes the sentence answer[start:end], trimmed of list
// marks and spaces, with its clauses.
func newSentence(answer string, start, end int) sentence {
	text := answer[start:end]
	trimmed := strings.TrimLeft(text, " \t")
	if m := listItemRe.FindStringIndex(trimmed); m != nil {
		trimmed = trimmed[m[1]:]
	}
	trimmed = strings.TrimLeft(trimmed, "#>* \t")
	start += len(text) - len(trimmed)
	trimmed = strings.TrimRightFunc(trimmed, unicode.IsSpace)
	end = start + len(trimmed)
	s := sentence{start: start, end: end, text: trimmed}
	prev := 0
	for _, m := range clauseRe.FindAllStringIndex(trimmed, -1) {
		if m[0] > prev {
			s.clauses = append(s.clauses, [2]int{prev, m[0]})
		}
		prev = m[1]
	}
	if prev < len(trimmed) {
		s.clauses = append(s.clauses, [2]int{prev, len(trimmed)})
	}
	s.conditional = condRe.MatchString(trimmed)
	last, _ := utf8.DecodeLastRuneInString(strings.TrimRight(trimmed, "*_)\"' "))
	s.question = last == '?' || last == '？'
	return s
}

// killWords are the words that make a clause something other than a
// claim about what happened: negation, modality, plans, hedges,
// conditions, the past before the run.
var killWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`not never cannot can't couldn't didn't doesn't don't isn't aren't wasn't weren't won't
		wouldn't shouldn't hasn't haven't hadn't unable should could would will might may must need needs needed if unless
		until please try trying tried plan plans planned expect expects expected want wants wanted hope hopefully probably
		perhaps maybe likely seems seem seemed appears think believe guess assume except ensure double-check originally
		initially formerly original before had supposed intend intended aim aiming can ought already previous previously earlier
		no nothing none neither nor without`) {
		m[w] = true
	}
	return m
})

// killPhrases are the same in several words, and in Chinese.
var (
	killPhrases    = []string{"no longer", "have to", "has to", "going to", "used to", "instead of", "yet to", "make sure", "verify that", "check that", "last time", "in case", "as soon as"}
	killPhrasesCJK = []string{"不", "没", "未", "无法", "别", "应该", "应当", "需要", "如果", "假如", "若是", "请", "可以", "可能", "也许", "或许", "打算", "计划", "预计", "之前", "原来", "原先", "以前", "曾经", "将会", "将要"}
)

// qualifierRe finds the phrases that bound a figure or report a clean
// result and hold a negation word: they are not negations ("no more
// than", "不少于", "no lint errors").
var qualifierRe = lazyregexp.New(`(?i)\b(?:no|not)\s+(?:more|less|fewer)\s+than\b|不少于|不低于|不超过|不多于|不到|不足|\bno\s+(?:lint|vet|linter|test|build|compile|compiler|type|eslint|ruff|flake8|staticcheck|clippy|pylint|mypy)\s+(?:errors|warnings|issues|failures|findings|complaints|problems)\b|\b(?:no|without|with\s+no)\s+(?:new\s+)?(?:errors|warnings|issues|failures|problems|findings|complaints|diagnostics)\b|\b0\s+failed\b`)

// killed reports whether text (a clause) is no claim about what
// happened: it denies, hedges, plans or supposes.
func killed(text string) bool {
	lower := strings.ToLower(text)
	if strings.Contains(lower, "no") || strings.Contains(lower, "without") || strings.Contains(lower, "不") || strings.Contains(lower, "0 failed") {
		lower = qualifierRe.ReplaceAllStringFunc(lower, func(m string) string { return strings.Repeat(" ", len(m)) })
	}
	for _, w := range strings.FieldsFunc(lower, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r == '\'' || r == '’' || r == '-')
	}) {
		if killWords()[strings.ReplaceAll(strings.Trim(w, "'’-"), "’", "'")] {
			return true
		}
	}
	for _, p := range killPhrases {
		if i := strings.Index(lower, p); i >= 0 && (i == 0 || !isLetterByte(lower[i-1])) && (i+len(p) == len(lower) || !isLetterByte(lower[i+len(p)])) {
			return true
		}
	}
	if hasCJK(lower) {
		for _, p := range killPhrasesCJK {
			if strings.Contains(lower, p) {
				return true
			}
		}
	}
	return false
}

// hasCJK reports whether s holds a character beyond ASCII worth a look
// for Chinese words.
func hasCJK(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xE0 {
			return true
		}
	}
	return false
}

// changesRe is a heading over a list of changed files: "Changes:",
// "## Changes made", "Summary of changes".
var changesRe = lazyregexp.New(`(?i)^[#*\s]*(?:summary of\s+)?changes(?:\s+made)?\b|^[#*\s]*(?:modified|changed|touched)\s+files\b|修改内容|变更内容|改动`)

// headingVerb returns the change verb of a heading line above a list,
// "Files created:", "## Changed files", "已修改的文件：", if it names no
// file itself.
func headingVerb(line string) string {
	t := strings.TrimSpace(line)
	heading := strings.HasPrefix(t, "#")
	colon := strings.HasSuffix(t, ":") || strings.HasSuffix(t, "：") || strings.HasSuffix(t, ":**") || strings.HasSuffix(t, "：**")
	if !heading && !colon {
		return ""
	}
	if len(findFiles(t)) > 0 || killed(t) {
		return ""
	}
	if changesRe.MatchString(t) {
		return "changed"
	}
	for _, m := range changeVerbRe.FindAllStringSubmatchIndex(t, -1) {
		return verbKind(t[m[0]:m[1]])
	}
	return ""
}
