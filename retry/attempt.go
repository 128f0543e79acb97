package retry

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
)

// Attempt describes one retry, reported to Policy.OnRetry before its wait.
type Attempt struct {
	// Attempt is the 1-based number of this retry.
	Attempt int
	// Status is the failed call's HTTP status, or 0 when there was no
	// response (a timeout, a dropped connection).
	Status int
	// Class is the failure's class ("" when the error carries none).
	Class llm.Class
	// Wait is how long the retry waits first, rounded to the millisecond.
	Wait time.Duration
	// RetryAfter is the server's requested wait, or zero.
	RetryAfter time.Duration
	// Budgeted is true when the wait is a rate-limit Retry-After waited
	// out within Policy.Budget instead of counted against Policy.Retries.
	Budgeted bool
	// Err is the failure being retried.
	Err error
}

// newAttempt describes retry k of err with the given wait.
func newAttempt(k int, err error, wait, retryAfter time.Duration, budgeted bool) Attempt {
	a := Attempt{
		Attempt:    k,
		Class:      llm.ClassOf(err),
		Wait:       wait.Round(time.Millisecond),
		RetryAfter: retryAfter,
		Budgeted:   budgeted,
		Err:        err,
	}
	var e *llm.Error
	if errors.As(err, &e) {
		a.Status = e.Status
	}
	return a
}

// Line is the detail text of the human event line, without the brackets
// and kind: "status=429 attempt=1 wait=1000ms", or for a failure without a
// status "error=connection attempt=2 wait=2000ms".
func (a Attempt) Line() string {
	var b strings.Builder
	if a.Status != 0 {
		b.WriteString("status=")
		b.WriteString(strconv.Itoa(a.Status))
	} else {
		b.WriteString("error=")
		b.WriteString(string(cmpClass(a.Class)))
	}
	b.WriteString(" attempt=")
	b.WriteString(strconv.Itoa(a.Attempt))
	b.WriteString(" wait=")
	b.WriteString(strconv.FormatInt(a.Wait.Milliseconds(), 10))
	b.WriteString("ms")
	return b.String()
}

// cmpClass names an error that carries no class.
func cmpClass(c llm.Class) llm.Class {
	if c == "" {
		return "unknown"
	}
	return c
}

// Event returns the retry event: type "retry", Line as its detail, and
// attempt, wait_ms, class, status (when there is one), retry_after_ms
// (when the server sent one), budgeted and error as its fields.
func (a Attempt) Event() event.Event {
	data := map[string]any{
		"attempt":  a.Attempt,
		"wait_ms":  a.Wait.Milliseconds(),
		"class":    string(a.Class),
		"budgeted": a.Budgeted,
	}
	if a.Status != 0 {
		data["status"] = a.Status
	}
	if a.RetryAfter > 0 {
		data["retry_after_ms"] = a.RetryAfter.Milliseconds()
	}
	if a.Err != nil {
		data["error"] = a.Err.Error()
	}
	return event.Event{Type: "retry", Detail: a.Line(), Data: data}
}
