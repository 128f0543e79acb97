package terminal

import "io"

// Writer returns a writer that escapes each Write with Lines before
// passing it on: line feeds and tabs pass, every other character a
// terminal would act on is shown escaped. Each Write is escaped on its
// own (the writers nightshift wraps write whole lines). Put it under the
// streams a person reads: nightshift's stderr, and the human outputs on
// stdout (tables, the report's text).
func Writer(w io.Writer) io.Writer {
	if _, ok := w.(writer); ok {
		return w
	}
	return writer{w}
}

type writer struct{ w io.Writer }

// Write reports len(p) written when the escaped text was written whole.
func (w writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.w, Lines(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap returns the writer written to, so that a caller can still ask
// whether it is a terminal.
func (w writer) Unwrap() io.Writer { return w.w }

// Raw returns the writer under the escaping writer that w is or wraps,
// for the control sequences nightshift itself writes (a status line's
// carriage return and erase-line), and w itself when there is none.
// Write only constants to it: text written there is not escaped, nor
// redacted by a redacting writer above the escaping one.
func Raw(w io.Writer) io.Writer {
	for x := w; x != nil; {
		if e, ok := x.(writer); ok {
			return e.w
		}
		u, ok := x.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		x = u.Unwrap()
	}
	return w
}
