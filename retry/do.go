package retry

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/llm"
)

// Do calls fn, and calls it again after a wait while it fails with a
// retryable error and the policy allows. It returns:
//   - fn's result as soon as a call succeeds;
//   - a non-retryable error as is, at once, without wrapping;
//   - an *ExhaustedError wrapping the last failure when the retries or the
//     budget run out;
//   - an error wrapping ctx.Err() when ctx ends, which stops a wait at once.
func Do[T any](ctx context.Context, p Policy, fn func(ctx context.Context) (T, error)) (T, error) {
	return do(ctx, p, nil, fn)
}

// do is Do with a hook run before each attempt, outside its call timeout
// (Wrap waits for the limiter there).
func do[T any](ctx context.Context, p Policy, before func(context.Context) error, fn func(ctx context.Context) (T, error)) (T, error) {
	p = p.withDefaults()
	var (
		zero    T
		retries int // retries counted against p.Retries
		blind   int // failures that did not say when to come back
		waited  time.Duration
	)
	for calls := 1; ; calls++ {
		var ticket breaker.Ticket
		if p.Breaker != nil {
			limit := time.Duration(-1)
			switch {
			case p.FailOnOpen:
				limit = 0 // not a moment's wait: the fallback takes the call
			case p.Budget > 0:
				limit = p.Budget - waited
			}
			t, w, err := p.Breaker.Admit(ctx, limit, p.OnBreaker)
			waited += w
			var ue *breaker.UnavailableError
			if errors.As(err, &ue) {
				ue.Waited = waited // the call's, retries and breaker together
			}
			if err != nil {
				return zero, err
			}
			ticket = t
		}
		if before != nil {
			if err := before(ctx); err != nil {
				return zero, err
			}
		}
		v, err := attempt(ctx, p.CallTimeout, fn)
		open := ticket.Record(err, p.OnBreaker)
		if err == nil {
			return v, nil
		}
		if ctx.Err() != nil {
			return zero, stopped(ctx, err)
		}
		if !p.Retryable(err) {
			return zero, err
		}
		if open && breaker.Counts(err) {
			// The endpoint is down for every caller, not for this call:
			// the next attempt waits on the breaker (within the budget)
			// instead of spending a retry on a backoff of its own.
			continue
		}
		server, cause := serverWait(err, p.Clock.Now())
		// A 429 that says how long to wait is wrong timing in its purest
		// form: it is waited out within the budget instead of spending a
		// retry, which keeps bounding failures that give no such promise
		// (issue 5).
		budgeted := p.Budget > 0 && server > 0 && llm.ClassOf(err) == llm.RateLimited
		if !budgeted {
			if retries >= p.Retries {
				return zero, &ExhaustedError{Attempts: calls, Waited: waited, Last: err}
			}
			retries++
		}
		if server == 0 {
			blind++
			cause = CauseBackoff
			server = p.backoff(blind)
			var se *llm.StallError
			if errors.As(err, &se) && se.BeforeFirstByte && se.Quiet > server {
				// The server sent nothing at all: it was most likely
				// still reading the prompt, and goes on with the
				// cancelled request for a while; a retry sent now would
				// queue behind it (issue 28). It waits as long as the
				// stall did.
				server, cause = se.Quiet, CauseStalled
			}
		}
		wait := p.wait(server, cause)
		if p.Budget > 0 && waited+wait > p.Budget {
			return zero, &ExhaustedError{Attempts: calls, Waited: waited, OverBudget: true, Last: err}
		}
		p.OnRetry(newAttempt(calls, err, wait, server, cause, budgeted))
		if serr := p.Clock.Sleep(ctx, wait); serr != nil {
			return zero, fmt.Errorf("retry: stopped waiting %s to retry after %v: %w", wait.Round(time.Millisecond), err, serr)
		}
		waited += wait
	}
}

// errCallTimeout is the cause of an attempt context that Policy.CallTimeout
// ended, which tells it from the caller's own deadline.
var errCallTimeout = errors.New("call timeout")

// attempt makes one call, bounded by timeout when it is positive. A call
// that fails because the timeout ended it becomes a retryable Timeout.
func attempt[T any](ctx context.Context, timeout time.Duration, fn func(context.Context) (T, error)) (T, error) {
	if timeout <= 0 {
		return fn(ctx)
	}
	actx, cancel := context.WithTimeoutCause(ctx, timeout, errCallTimeout)
	defer cancel()
	v, err := fn(actx)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(actx), errCallTimeout) {
		e := &llm.Error{Class: llm.Timeout, Message: fmt.Sprintf("no reply within the call timeout of %s", timeout), Err: err}
		var pe *llm.Error
		if errors.As(err, &pe) {
			e.Provider = pe.Provider
		}
		err = e
	}
	return v, err
}

// stopped is the error of a call that failed after ctx ended: it wraps
// ctx.Err() so that the caller sees a cancellation, not the failure the
// cancellation caused.
func stopped(ctx context.Context, err error) error {
	if errors.Is(err, ctx.Err()) || llm.ClassOf(err) == llm.Canceled {
		return err
	}
	return fmt.Errorf("retry: %w (the call failed with: %v)", ctx.Err(), err)
}

// serverWait is how long the server that refused err asked the caller to
// wait, and where it said so: its Retry-After (CauseRetryAfter), or for a
// 429 or an overload without one, the time until an exhausted rate-limit
// window named in the response's headers gives a request back
// (CauseReset). It is zero when the server did not say.
func serverWait(err error, now time.Time) (time.Duration, string) {
	var e *llm.Error
	if !errors.As(err, &e) {
		return 0, ""
	}
	if e.RetryAfter > 0 {
		return e.RetryAfter, CauseRetryAfter
	}
	if e.Class != llm.RateLimited && e.Class != llm.Overloaded {
		return 0, ""
	}
	if d := resetWait(e.Header, now); d > 0 {
		return d, CauseReset
	}
	return 0, ""
}
