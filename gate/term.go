package gate

import "os"

// IsTerminal reports whether f is a terminal. /dev/null is a character
// device too, so the mode bits are not enough: on Unix the terminal
// attributes are asked for, which only a terminal has.
func IsTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	return isTerminal(f)
}
