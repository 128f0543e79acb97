package claims

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
)

// number is one figure found in the answer, and where.
type number struct {
	start, end int
	value      float64
	// round is true for a figure written as an estimate: "4k", "1.2
	// thousand", "12 KB"; decimal for one with a fraction ("1.2"), which
	// counts nothing but sizes in KB or MB.
	round, decimal bool
}

// digitsRe finds the figures written in digits (ASCII or fullwidth), with
// thousands separators and decimals and a k, thousand or million after
// them.
var digitsRe = lazyregexp.New(`(?i)(?:[0-9０-９]{1,3}(?:(?:,|，|'|_| |\x{202F})[0-9０-９]{3})+|[0-9０-９]+)(?:[.．][0-9０-９]+)?(?:\s?(?:k\b|thousand\b|million\b|千|万))?`).
	Needs("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "０", "１", "２", "３", "４", "５", "６", "７", "８", "９")

// findNumbers returns the figures of s, in order, with offsets into s:
// digits, English number words ("five", "twenty-one", "a dozen"),
// Chinese numerals ("五", "三千八百四十七").
func findNumbers(s string) []number {
	var out []number
	for _, m := range digitsRe.FindAllStringIndex(s, -1) {
		text := s[m[0]:m[1]]
		// A figure glued to a word ("v2", "utf8", "h1", "x86") is a name,
		// not a count; a digit run ending in a word part likewise.
		if m[0] > 0 && isWordByte(s[m[0]-1]) && isDigitStart(text) {
			continue
		}
		if m[1] < len(s) && isDigitEnd(text) && isLetterByte(s[m[1]]) && !unitGlued(s[m[1]:]) {
			continue
		}
		out = appendNumber(out, text, m[0], m[1])
	}
	out = append(out, wordNumbers(s)...)
	out = append(out, chineseNumbers(s)...)
	slices.SortFunc(out, func(a, b number) int { return a.start - b.start })
	return out
}

func appendNumber(out []number, text string, start, end int) []number {
	v, round, ok := parseNumber(text)
	if !ok {
		return out
	}
	decimal := v != float64(int64(v))
	return append(out, number{start: start, end: end, value: v, round: round || decimal, decimal: decimal})
}

// wordNumbers finds the English number words of s: "five", "twenty-one",
// "three hundred", "a dozen".
func wordNumbers(s string) []number {
	var out []number
	for i := 0; i < len(s); {
		if !isLetterByte(s[i]) || i > 0 && isLetterByte(s[i-1]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isLetterByte(s[j]) {
			j++
		}
		w := strings.ToLower(s[i:j])
		_, isNum := numberWords()[w]
		switch {
		case isNum:
			end := j
			// "twenty-one", "twenty one"
			if tens := numberWords()[w]; tens >= 20 && end+1 < len(s) && (s[end] == '-' || s[end] == ' ') {
				k := end + 1
				for k < len(s) && isLetterByte(s[k]) {
					k++
				}
				if u, ok := numberWords()[strings.ToLower(s[end+1:k])]; ok && u > 0 && u < 10 {
					end = k
				}
			}
			// "three hundred"
			if k := end + len(" hundred"); k <= len(s) && strings.EqualFold(s[end:k], " hundred") && (k == len(s) || !isLetterByte(s[k])) {
				end = k
			}
			out = appendNumber(out, s[i:end], i, end)
			i = end
		case w == "dozen" || w == "hundred" || w == "thousand":
			start := i
			if i >= 2 && strings.EqualFold(s[i-2:i], "a ") {
				start = i - 2
			}
			out = appendNumber(out, s[start:j], start, j)
			i = j
		default:
			i = j
		}
	}
	return out
}

// chineseNumbers finds the runs of Chinese numerals in s.
func chineseNumbers(s string) []number {
	var out []number
	start := -1
	for i, r := range s + " " {
		if strings.ContainsRune("零〇一二两三四五六七八九十百千万", r) && i < len(s) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = appendNumber(out, s[start:i], start, i)
			start = -1
		}
	}
	return out
}

// unitGlued reports whether rest starts with a unit that may follow a
// figure without a space ("512B", "12KB", "4k+").
func unitGlued(rest string) bool {
	for _, u := range []string{"B", "KB", "kB", "KiB", "MB", "MiB", "k"} {
		if strings.HasPrefix(rest, u) && (len(rest) == len(u) || !isLetterByte(rest[len(u)])) {
			return true
		}
	}
	return false
}

// isWordByte reports a byte that, before a figure, makes it part of a
// name or a version ("v2", "1.2.3").
func isWordByte(b byte) bool {
	return isLetterByte(b) || b == '_' || (b >= '0' && b <= '9') || b == '.'
}

func isLetterByte(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

func isDigitStart(s string) bool { return s != "" && (s[0] >= '0' && s[0] <= '9') }

func isDigitEnd(s string) bool {
	return s != "" && s[len(s)-1] >= '0' && s[len(s)-1] <= '9'
}

var numberWords = sync.OnceValue(func() map[string]int {
	return map[string]int{
		"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
		"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
		"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
		"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
	}
})

// parseNumber reads one figure that numberRe matched.
func parseNumber(text string) (value float64, round, ok bool) {
	t := strings.ToLower(strings.TrimSpace(text))
	switch strings.TrimPrefix(t, "a ") {
	case "dozen":
		return 12, false, true
	case "hundred":
		return 100, true, true
	case "thousand":
		return 1000, true, true
	}
	if t == "" {
		return 0, false, false
	}
	if r := []rune(t)[0]; strings.ContainsRune("零〇一二两三四五六七八九十百千万", r) {
		v, ok := parseChinese(t)
		return float64(v), false, ok
	}
	if t[0] < '0' || t[0] > '9' {
		if t[0] < 0x80 {
			return parseWords(t)
		}
	}
	// Digits, maybe fullwidth, with separators and a multiplier.
	mult := 1.0
	for _, s := range []struct {
		suffix string
		mult   float64
	}{{"thousand", 1e3}, {"million", 1e6}, {"k", 1e3}, {"千", 1e3}, {"万", 1e4}} {
		if strings.HasSuffix(t, s.suffix) {
			t, mult, round = strings.TrimSpace(strings.TrimSuffix(t, s.suffix)), s.mult, true
			break
		}
	}
	var b strings.Builder
	for _, r := range t {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= '０' && r <= '９':
			b.WriteRune('0' + (r - '０'))
		case r == '.' || r == '．':
			b.WriteByte('.')
		}
	}
	v, err := strconv.ParseFloat(b.String(), 64)
	if err != nil {
		return 0, false, false
	}
	return v * mult, round, true
}

// parseWords reads "five", "twenty-one", "three hundred".
func parseWords(t string) (float64, bool, bool) {
	t = strings.ReplaceAll(t, "-", " ")
	hundred := false
	if rest, ok := strings.CutSuffix(t, " hundred"); ok {
		t, hundred = rest, true
	}
	n := 0
	for _, w := range strings.Fields(t) {
		v, ok := numberWords()[w]
		if !ok {
			return 0, false, false
		}
		n += v
	}
	if hundred {
		return float64(n * 100), true, true
	}
	return float64(n), false, true
}

// parseChinese reads a Chinese numeral: "五", "十二", "三千八百四十七",
// "两万". It refuses a run that is not a well-formed number.
func parseChinese(t string) (int, bool) {
	digit := map[rune]int{'零': 0, '〇': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}
	unit := map[rune]int{'十': 10, '百': 100, '千': 1000}
	total, section, cur := 0, 0, -1
	for _, r := range t {
		if d, ok := digit[r]; ok {
			if cur >= 0 && cur != 0 && d != 0 {
				return 0, false // "五五" is not a numeral
			}
			cur = d
			continue
		}
		if u, ok := unit[r]; ok {
			if cur < 0 {
				if u != 10 || section != 0 {
					return 0, false
				}
				cur = 1 // "十二" is 12
			}
			section += cur * u
			cur = -1
			continue
		}
		if r == '万' {
			if cur > 0 {
				section += cur
			}
			if section == 0 {
				return 0, false
			}
			total += section * 10000
			section, cur = 0, -1
			continue
		}
		return 0, false
	}
	if cur > 0 {
		section += cur
	}
	return total + section, true
}
