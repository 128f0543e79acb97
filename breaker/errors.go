package breaker

import (
	"errors"
	"fmt"
	"time"
)

// ErrUnavailable is the sentinel every *UnavailableError matches with
// errors.Is: a call waited on an open breaker as long as it could.
var ErrUnavailable = errors.New("breaker: the endpoint is unavailable")

// UnavailableError is the error of a call that did not go out because its
// endpoint's breaker stayed open (or its probe unanswered) past the
// caller's wait limit, the retry budget. A run that meets it is paused,
// not failed: the provider, not the task, is broken (outcome
// unavailable).
type UnavailableError struct {
	// Endpoint is the endpoint's host.
	Endpoint string
	// Since is when the outage began (zero when unknown); Until when the
	// open breaker lets one call probe (zero when a probe is out).
	Since, Until time.Time
	// Failures is the outage failures counted so far; Cool the
	// breaker's cool-off.
	Failures int
	Cool     time.Duration
	// Waited is how long the call waited on the breaker.
	Waited time.Duration
}

func (e *UnavailableError) Error() string {
	s := fmt.Sprintf("the circuit breaker of %s is open", e.Endpoint)
	if e.Failures > 0 {
		s += fmt.Sprintf(" after %d failures in a row", e.Failures)
	}
	return s + fmt.Sprintf(" (cool-off %s); the call waited %s and the rest of the retry budget would not reach its end",
		e.Cool, e.Waited.Round(time.Millisecond))
}

// Is makes errors.Is(err, ErrUnavailable) true for every *UnavailableError.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }
