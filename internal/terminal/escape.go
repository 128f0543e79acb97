package terminal

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with every character a terminal would act on instead
// of showing, or would not show at all, written as an escape: \n, \r, \t
// and \x1b for the usual C0 controls, \xNN for the other C0 controls,
// DEL and a byte that is not UTF-8, and \uNNNN (\UNNNNNNNN past
// U+FFFF) for the C1 controls
// (U+0080 to U+009F, CSI among them) and the characters that reorder,
// join or hide text (bidirectional overrides and isolates, zero-width
// characters, line and paragraph separators, every Unicode format
// character, the Hangul fillers). What it returns is one line of
// characters that show as themselves, and Escape(Escape(s)) is
// Escape(s).
func Escape(s string) string { return escape(s, false) }

// Lines is Escape for text whose line breaks and tabs are its own (a
// preview of a diff, a report): line feeds and tabs are kept, every
// other character Escape escapes is escaped.
func Lines(s string) string { return escape(s, true) }

// escape is the one escaping function: Escape and Lines differ only in
// whether line feeds and tabs are kept.
func escape(s string, keepLines bool) string {
	if !needsEscape(s, keepLines) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case (r == '\n' || r == '\t') && keepLines:
			b.WriteByte(byte(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r) && r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// needsEscape reports whether escape would change s.
func needsEscape(s string, keepLines bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && !(keepLines && (c == '\n' || c == '\t')) || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || hidden(r) {
			return true
		}
		i += size
	}
	return false
}

// hidden reports whether a terminal would act on r, a character past
// ASCII, or show nothing for it: the C1 controls (U+0080 to U+009F,
// among them CSI, U+009B), line and paragraph separators, the format
// characters (bidirectional embeddings, overrides and isolates, zero
// width spaces and joiners, the soft hyphen, the byte order mark, tag
// characters), and the Hangul fillers, letters that show as blanks.
func hidden(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	case r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}
