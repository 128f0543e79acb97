package llm

import (
	"errors"
	"fmt"
	"time"
)

// ErrStalled matches, with errors.Is, the failure of a streaming call
// that a stall watch cancelled because the server sent nothing for too
// long (a Timeout-class *Error wrapping a *StallError).
var ErrStalled = errors.New("the stream stalled")

// StallError says how a stream stalled: how long it had been quiet when
// it was cancelled, and whether no byte of its body had come at all. A
// server that sent nothing yet was most likely still reading a long
// prompt (a local server sends nothing until it has), and it goes on
// with the cancelled request for a while: the retry layer waits at least
// as long before it calls again (retry.CauseStalled), instead of queueing
// the retry behind it.
type StallError struct {
	// Quiet is how long the stream had sent nothing.
	Quiet time.Duration
	// BeforeFirstByte is true when no byte of the body had come.
	BeforeFirstByte bool
}

func (e *StallError) Error() string {
	if e.BeforeFirstByte {
		return fmt.Sprintf("no first byte within %s", e.Quiet)
	}
	return fmt.Sprintf("quiet for %s", e.Quiet)
}

// Is makes errors.Is(err, ErrStalled) true.
func (e *StallError) Is(target error) bool { return target == ErrStalled }
