package retry

import (
	"errors"
	"fmt"
	"time"
)

// ErrExhausted is the sentinel every *ExhaustedError matches with
// errors.Is: the retries or the retry budget ran out.
var ErrExhausted = errors.New("retries exhausted")

// ExhaustedError is returned when a retryable failure is still failing
// after the last allowed retry, or when the next wait would overrun the
// retry budget. It unwraps to the last failure, so llm.ClassOf still sees
// the last class.
type ExhaustedError struct {
	// Attempts is how many calls were made.
	Attempts int
	// Waited is the total time waited between them.
	Waited time.Duration
	// OverBudget is true when the budget, not the retry count, ran out:
	// the next wait would have passed Policy.Budget.
	OverBudget bool
	// Last is the last call's failure.
	Last error
}

func (e *ExhaustedError) Error() string {
	why := "retries exhausted"
	if e.OverBudget {
		why = "retry budget exhausted"
	}
	calls := "calls"
	if e.Attempts == 1 {
		calls = "call" // --retries 0
	}
	return fmt.Sprintf("%s after %d %s (waited %s): %v", why, e.Attempts, calls, e.Waited.Round(time.Millisecond), e.Last)
}

// Unwrap returns the last failure.
func (e *ExhaustedError) Unwrap() error { return e.Last }

// Is makes errors.Is(err, ErrExhausted) true for every *ExhaustedError.
func (e *ExhaustedError) Is(target error) bool { return target == ErrExhausted }
