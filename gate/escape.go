package gate

import "github.com/nightshift-dev/nightshift/internal/terminal"

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
// Escape(Escape(s)) is Escape(s). It is terminal.Lines, the escaping of
// everything nightshift writes to a terminal.
func Escape(s string) string { return terminal.Lines(s) }

// escape is Escape, also reporting whether anything was escaped.
func escape(s string) (string, bool) {
	out := terminal.Lines(s)
	return out, out != s
}
