package claims

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
	"github.com/nightshift-dev/nightshift/verify"
)

// Kinds of count claims about a file.
const (
	kindChars = "chars"
	kindWords = "words"
	kindLines = "lines"
	kindBytes = "bytes"
	kindItems = "items"
)

// measure returns the ways of counting kind in data that a careful
// worker might have used, the first being the one the rules use: a claim
// is true when any of them bears it out, and a false claim is told the
// first. Characters are verify.Chars (what min-chars counts), also without
// the trailing newline and without spaces (never bytes: a Chinese post of
// 3,341 characters is not "over 4,000" for its 10,023 bytes); words are verify.Words (what min-words counts) and the
// runs of non-space; lines are verify.Lines, the newlines (`wc -l`) and the
// lines that are not blank. A count of 字 (zi) also takes the letters
// and figures alone and verify.Words, as a Chinese word count counts;
// noSpaces asks for characters without spaces only. nil means the content
// cannot be counted that way (a binary file).
func measure(kind string, data []byte, zi, noSpaces bool) []int {
	if kind == kindBytes {
		return []int{len(data), len(bytes.TrimRight(data, "\r\n"))}
	}
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return nil
	}
	s := string(data)
	switch kind {
	case kindChars:
		if noSpaces {
			return []int{countFunc(s, func(r rune) bool { return !unicode.IsSpace(r) })}
		}
		out := []int{
			verify.Chars(s),
			verify.Chars(strings.TrimRight(s, "\r\n")),
			countFunc(s, func(r rune) bool { return !unicode.IsSpace(r) }),
		}
		if zi {
			out = append(out, countFunc(s, isAlnum), verify.Words(s))
		}
		return out
	case kindWords:
		return []int{
			verify.Words(s),
			len(strings.Fields(s)),
			// Words without the Markdown marks that stand alone (#, -, *).
			countFields(s, func(f string) bool { return strings.IndexFunc(f, isAlnum) >= 0 }),
		}
	case kindLines:
		return []int{
			verify.Lines(s),
			strings.Count(s, "\n"),
			countLines(s, func(l string) bool { return strings.TrimSpace(l) != "" }),
		}
	}
	return nil
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

func countFunc(s string, f func(rune) bool) int {
	n := 0
	for _, r := range s {
		if f(r) {
			n++
		}
	}
	return n
}

func countFields(s string, f func(string) bool) int {
	n := 0
	for _, w := range strings.Fields(s) {
		if f(w) {
			n++
		}
	}
	return n
}

func countLines(s string, f func(string) bool) int {
	n := 0
	for l := range strings.SplitSeq(s, "\n") {
		if f(l) {
			n++
		}
	}
	return n
}

var (
	numberedRe = lazyregexp.New(`^(\s*)(?:\d{1,4}[.)、]|[一二三四五六七八九十]+、|\(\d{1,4}\))\s*\S`)
	bulletRe   = lazyregexp.New(`^(\s*)(?:[-*+•]\s+(?:\[[ xX]\]\s+)?)\S`)
	headingRe  = lazyregexp.New(`^(#{1,6})\s+\S`)
	stepLineRe = lazyregexp.New(`(?i)^\s*(?:#{1,6}\s*|\*\*)?(?:step\s+\d+|第[一二三四五六七八九十\d]+步)`)
	tableRowRe = lazyregexp.New(`^\s*\|.*\|\s*$`)
	tableSepRe = lazyregexp.New(`^\s*\|?\s*:?-{2,}`)
)

// itemCounts returns the ways of counting the items (steps, rows,
// entries) of a file, the likeliest first for noun: the records of a
// CSV, the elements of a JSON or YAML list, the list items, headings and
// table rows of Markdown and text. nil means the file has nothing to
// count: its items cannot be told.
func itemCounts(p string, data []byte, noun string) []int {
	if !utf8.Valid(data) {
		return nil
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".csv", ".tsv":
		return csvCounts(data, strings.HasSuffix(strings.ToLower(p), ".tsv"))
	case ".json":
		return jsonCounts(data)
	case ".jsonl", ".ndjson":
		n := countLines(string(data), func(l string) bool { return strings.TrimSpace(l) != "" })
		return []int{n}
	case ".yaml", ".yml":
		return yamlCounts(data)
	}
	return textCounts(string(data), noun, strings.ToLower(path.Ext(p)))
}

func csvCounts(data []byte, tsv bool) []int {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord, r.LazyQuotes = -1, true
	if tsv {
		r.Comma = '\t'
	}
	recs, err := r.ReadAll()
	lines := countLines(string(data), func(l string) bool { return strings.TrimSpace(l) != "" })
	if err != nil {
		return []int{lines, max(lines-1, 0)}
	}
	n := len(recs)
	return []int{max(n-1, 0), n, lines, max(lines-1, 0)}
}

func jsonCounts(data []byte) []int {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil
	}
	return containerCounts(v)
}

func yamlCounts(data []byte) []int {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil
	}
	return containerCounts(v)
}

// containerCounts counts a decoded document: a list's elements, a map's
// keys, and the elements of each list a map holds.
func containerCounts(v any) []int {
	switch x := v.(type) {
	case []any:
		return []int{len(x)}
	case map[string]any:
		out := []int{}
		for _, e := range x {
			if l, ok := e.([]any); ok {
				out = append(out, len(l))
			}
		}
		return append(out, len(x))
	}
	return nil
}

// textCounts counts the structure of Markdown or plain text.
func textCounts(s, noun, ext string) []int {
	var numbered, topNumbered, bullets, topBullets, headings, subHeadings, steps, rows, nonBlank int
	inFence, inTable, sawSep := false, false, false
	minIndent := -1
	lines := strings.Split(s, "\n")
	for _, l := range lines {
		if fenceRe.MatchString(l) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if strings.TrimSpace(l) != "" {
			nonBlank++
		}
		if m := numberedRe.FindStringSubmatch(l); m != nil {
			numbered++
			if minIndent < 0 || len(m[1]) < minIndent {
				minIndent = len(m[1])
			}
		}
		if m := bulletRe.FindStringSubmatch(l); m != nil {
			bullets++
			if minIndent < 0 || len(m[1]) < minIndent {
				minIndent = len(m[1])
			}
		}
		if m := headingRe.FindStringSubmatch(l); m != nil {
			headings++
			if len(m[1]) > 1 {
				subHeadings++
			}
		}
		if stepLineRe.MatchString(l) {
			steps++
		}
		switch {
		case tableRowRe.MatchString(l):
			if !inTable {
				inTable, sawSep = true, false
			} else if tableSepRe.MatchString(l) && !sawSep {
				sawSep = true
			} else {
				rows++
			}
		default:
			inTable = false
		}
	}
	for _, l := range lines {
		if m := numberedRe.FindStringSubmatch(l); m != nil && len(m[1]) == minIndent {
			topNumbered++
		}
		if m := bulletRe.FindStringSubmatch(l); m != nil && len(m[1]) == minIndent {
			topBullets++
		}
	}
	// One heading is the document's title, not an item: headings count
	// only when there are several.
	if headings < 2 {
		headings, subHeadings = 0, 0
	}
	var out []int
	add := func(ns ...int) {
		for _, n := range ns {
			if n > 0 {
				out = append(out, n)
			}
		}
	}
	switch {
	case strings.HasPrefix(noun, "row") || strings.HasPrefix(noun, "record"):
		add(rows, topNumbered+topBullets, numbered, bullets)
	case strings.HasPrefix(noun, "step") || noun == "步骤" || noun == "步":
		add(topNumbered, steps, numbered, topNumbered+topBullets, subHeadings, headings, bullets)
	default:
		add(topNumbered+topBullets, topNumbered, topBullets, numbered+bullets, numbered, bullets, subHeadings, headings, rows, steps)
	}
	if len(out) == 0 && (ext == ".txt" || ext == ".log" || ext == ".list" || ext == "") {
		// A plain list: one entry a line.
		add(nonBlank)
	}
	return out
}
