package gate

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape makes every character that a terminal would act on instead of
// showing visible: a carriage return becomes \r, ESC \x1b, another control
// character \xNN, a character that reorders or hides text (bidirectional
// overrides, zero-width characters) \uNNNN, and a byte that is not UTF-8
// \xNN. Line feeds and tabs stay as they are: they show. What a person is
// asked to approve must be what will run, and a command such as
//
//	rm -f important.txt #\r\x1b[2K$ ls -la
//
// would otherwise show on a terminal as the harmless "$ ls -la".
// Escape(Escape(s)) is Escape(s).
func Escape(s string) string {
	out, _ := escape(s)
	return out
}

// escape is Escape, also reporting whether anything was escaped.
func escape(s string) (string, bool) {
	if !needsEscape(s) {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String(), true
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || hidden(r) {
			return true
		}
		i += size
	}
	return false
}

// hidden reports whether a terminal would act on r or show nothing for
// it: C1 controls (U+0080-U+009F, among them CSI, U+009B), and the
// characters that reorder or hide text.
func hidden(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x180e, r == 0xfeff:
		return true
	case r >= 0x200b && r <= 0x200f: // zero-width space, joiners, LRM, RLM
		return true
	case r >= 0x2028 && r <= 0x202e: // line and paragraph separators, bidi embeddings and overrides
		return true
	case r >= 0x2060 && r <= 0x2069: // word joiner, invisible operators, bidi isolates
		return true
	}
	return false
}
