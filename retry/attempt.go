package retry

import (
	"errors"
	"time"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
)

// The causes of a retry's wait, as Attempt.Cause and the human line name
// them.
const (
	// CauseRetryAfter: the server's Retry-After (or retry-after-ms).
	CauseRetryAfter = "retry-after"
	// CauseReset: no Retry-After, but the response's rate-limit headers
	// said when an exhausted window gives a request back.
	CauseReset = "reset"
	// CauseBackoff: the failure said nothing about when to come back, so
	// the wait is the exponential backoff.
	CauseBackoff = "backoff"
	// CauseStalled: a stream was cancelled before its first byte (the
	// server was most likely still reading the prompt, and goes on with
	// the cancelled request), so the wait is at least as long as the
	// stall: `stalled=2m0s`.
	CauseStalled = "stalled"
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
	// RetryAfter is the server's requested wait (its Retry-After, or the
	// wait its rate-limit reset implies), or for CauseStalled how long
	// the stream had sent nothing; zero otherwise.
	RetryAfter time.Duration
	// Cause says what decided the wait: CauseRetryAfter, CauseReset,
	// CauseStalled or CauseBackoff.
	Cause string
	// Backoff is the exponential backoff before jitter when Cause is
	// CauseBackoff, else zero.
	Backoff time.Duration
	// Budgeted is true when the wait is a rate-limit Retry-After waited
	// out within Policy.Budget instead of counted against Policy.Retries.
	Budgeted bool
	// Err is the failure being retried.
	Err error
}

// newAttempt describes retry k of err: its wait, and d, what the cause
// named (the server's wait, or the backoff before jitter).
func newAttempt(k int, err error, wait, d time.Duration, cause string, budgeted bool) Attempt {
	a := Attempt{
		Attempt:  k,
		Class:    llm.ClassOf(err),
		Wait:     wait.Round(time.Millisecond),
		Cause:    cause,
		Budgeted: budgeted,
		Err:      err,
	}
	if cause == CauseBackoff {
		a.Backoff = d
	} else {
		a.RetryAfter = d
	}
	var e *llm.Error
	if errors.As(err, &e) {
		a.Status = e.Status
	}
	return a
}

// Line is the detail text of the human event line, without the brackets
// and kind: the failure, the retry's number, the wait, and its cause with
// what the cause named. For example "status=429 attempt=1 wait=1020ms
// retry-after=1s", "status=429 attempt=2 wait=510ms reset=500ms", or for
// a failure without a status "error=connection attempt=2 wait=1843ms
// backoff=2s".
func (a Attempt) Line() string { return a.Event().Detail }

// Event returns the retry event (docs/events.md), as event.NewRetry makes
// it: every caller that reports a model call's retries, the loop and the
// night's roles alike, reports them this way.
func (a Attempt) Event() event.Event {
	wait := a.RetryAfter
	if a.Cause == CauseBackoff {
		wait = a.Backoff
	}
	return event.NewRetry(event.RetryInfo{
		Attempt: a.Attempt, Wait: a.Wait, Cause: a.Cause, CauseWait: wait,
		Status: a.Status, Class: string(a.Class), Err: a.Err,
	})
}
