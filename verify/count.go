package verify

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Chars counts Unicode code points, whitespace included: a Chinese post of
// 3,341 characters counts 3341, not its 10,023 bytes. An invalid byte counts
// as one character.
func Chars(s string) int { return utf8.RuneCountInString(s) }

// Words counts words the way `wc -w` does (maximal runs of non-whitespace),
// except that each CJK character (Han, Hiragana, Katakana, Hangul) is a word
// on its own, since those scripts do not put spaces between words:
// "hello世界" is 3 words. CJK punctuation such as "，" and "。" separates
// words without being one, so "你好。" is 2 rather than 3.
func Words(s string) int {
	n := 0
	inWord := false
	for _, r := range s {
		if r < utf8.RuneSelf {
			// ASCII, most of most texts: no table lookups.
			if r == ' ' || (r >= '\t' && r <= '\r') {
				inWord = false
			} else if !inWord {
				n++
				inWord = true
			}
			continue
		}
		switch {
		case unicode.IsSpace(r) || isCJKPunct(r):
			inWord = false
		case isCJK(r):
			n++
			inWord = false
		case !inWord:
			n++
			inWord = true
		}
	}
	return n
}

// isCJK reports whether r is a character of a script that writes words
// without spaces between them.
func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// isCJKPunct reports whether r belongs between or onto CJK words without
// being one: the CJK Symbols and Punctuation block (the ideographic space,
// "。", "、", the iteration mark "々"), fullwidth punctuation such as "，",
// and the prolonged sound mark "ー", which lengthens the kana before it.
func isCJKPunct(r rune) bool {
	switch {
	case r == 0x30FC || r == 0xFF70:
		return true
	case r >= 0x3000 && r <= 0x303F:
		return !unicode.Is(unicode.Han, r)
	case r >= 0xFF00 && r <= 0xFF65:
		return unicode.IsPunct(r) || unicode.IsSymbol(r)
	}
	return false
}

// Lines counts lines as an editor shows them: every newline ends one, and
// a last line without a newline counts too. "" is 0 lines, "a\n" is 1,
// "a\nb" is 2. (`wc -l` counts only the newlines: 1 for "a\nb".)
func Lines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
