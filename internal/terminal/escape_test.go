package terminal_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/internal/terminal"
)

// The one table of what is escaped: the attacks (a screen
// cleared before "all checks passed", a line wiped by \r, an override
// that reverses a file name) and every class of character a terminal
// acts on or does not show.
var table = []struct {
	name, in, line, lines string
}{
	{"plain text is left", "all checks passed", "all checks passed", "all checks passed"},
	{"a line feed and a tab are escaped in a field, kept in text", "a\n\tb", `a\n\tb`, "a\n\tb"},
	{"a carriage return", "rm -rf x #\r$ ls", `rm -rf x #\r$ ls`, `rm -rf x #\r$ ls`},
	{"ESC [2J before a forged line", "\x1b[2Jall checks passed", `\x1b[2Jall checks passed`, `\x1b[2Jall checks passed`},
	{"an OSC title sequence ended by BEL", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`, `\x1b]0;pwned\x07`},
	{"other C0 controls and DEL", "nul\x00 bs\x08 del\x7f", `nul\x00 bs\x08 del\x7f`, `nul\x00 bs\x08 del\x7f`},
	{"C1 controls: CSI and NEL", "csi \u009b2J nel \u0085", `csi \u009b2J nel \u0085`, `csi \u009b2J nel \u0085`},
	{"a bidirectional override", "file\u202egnp.exe", `file\u202egnp.exe`, `file\u202egnp.exe`},
	{"bidirectional isolates and marks", "\u2066a\u2069\u200f", `\u2066a\u2069\u200f`, `\u2066a\u2069\u200f`},
	{"zero-width characters", "zero\u200bwidth\u2060joiner\ufeff", `zero\u200bwidth\u2060joiner\ufeff`, `zero\u200bwidth\u2060joiner\ufeff`},
	{"line and paragraph separators", "a\u2028b\u2029c", `a\u2028b\u2029c`, `a\u2028b\u2029c`},
	{"tag characters (hidden text)", "ok\U000e0041\U000e0042", `ok\U000e0041\U000e0042`, `ok\U000e0041\U000e0042`},
	{"a soft hyphen and a Hangul filler", "a\u00adb\u3164c", `a\u00adb\u3164c`, `a\u00adb\u3164c`},
	{"a byte that is not UTF-8", "bad \xff byte", `bad \xff byte`, `bad \xff byte`},
	{"letters of any script and emoji are left", "日本語 ñ Ωμέγα 🌙", "日本語 ñ Ωμέγα 🌙", "日本語 ñ Ωμέγα 🌙"},
	{"a backslash typed is left", `C:\new\tab`, `C:\new\tab`, `C:\new\tab`},
}

func TestEscape(t *testing.T) {
	for _, tt := range table {
		t.Run(tt.name, func(t *testing.T) {
			if got := terminal.Escape(tt.in); got != tt.line {
				t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.line)
			}
			if got := terminal.Lines(tt.in); got != tt.lines {
				t.Errorf("Lines(%q) = %q, want %q", tt.in, got, tt.lines)
			}
			if again := terminal.Escape(terminal.Escape(tt.in)); again != terminal.Escape(tt.in) {
				t.Errorf("Escape is not idempotent on %q: %q", tt.in, again)
			}
			if shown := terminal.Escape(tt.in); !Printable(shown) {
				t.Errorf("Escape(%q) = %q holds a character a terminal acts on", tt.in, shown)
			}
		})
	}
}

// Printable reports whether s holds only characters that show as
// themselves on one line.
func Printable(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool {
		return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 ||
			r >= 0x200b && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2060 && r <= 0x206f || r == 0xfeff || r >= 0xe0000 && r <= 0xe007f
	}) && !strings.Contains(s, "\ufffd")
}

func TestWriterEscapesEachWriteAndKeepsLines(t *testing.T) {
	var b bytes.Buffer
	w := terminal.Writer(&b)
	fmt.Fprintf(w, "[verify · FAIL: %s]\n", "\x1b[2J")
	fmt.Fprint(w, "next\tline\n")
	if want := "[verify · FAIL: \\x1b[2J]\nnext\tline\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if terminal.Writer(w) != w {
		t.Error("a writer wrapped twice escapes twice")
	}
	fmt.Fprint(terminal.Raw(w), "\r\x1b[K")
	if !strings.HasSuffix(b.String(), "\r\x1b[K") {
		t.Errorf("Raw escaped a control sequence: %q", b.String())
	}
	if terminal.Raw(&b) != &b {
		t.Error("Raw of a writer that does not escape is not that writer")
	}
}
