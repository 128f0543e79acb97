// Package retry is the one retry layer of nightshift. It retries only
// "wrong timing" (rate limits, overloads, transient 5xx, timeouts, dropped
// connections) and never "wrong content" (bad requests, auth, quota): a 400
// resent ten thousand times is still a 400 (seed 000, section 4.2).
//
// Waits grow exponentially from Policy.Backoff with jitter taken off, are
// capped at Policy.MaxBackoff, are never shorter than the server's
// Retry-After, and go through an injected clock, so tests never sleep. Every
// retry is reported to Policy.OnRetry before its wait, so it can be printed
// as the human line `[retry · status=429 attempt=1 wait=1000ms]`.
//
// Policy.Retries bounds the retries of overloads, 5xx and rate limits that
// give no Retry-After: `--retries N` means at most N+1 calls. A 429 that
// says how long to wait is waited out within Policy.Budget instead, the
// total wait allowed per call.
//
// A Limiter, shared by every run in the process through a Limiters
// registry, paces the calls made under one provider credential: it learns
// the limit from rate-limit headers and from 429s, and can be set by hand.
//
// Wrapping a model:
//
//	m = retry.Wrap(m, retry.Policy{
//		Retries: retry.DefaultRetries,
//		OnRetry: func(a retry.Attempt) { fmt.Fprintf(os.Stderr, "[retry · %s]\n", a.Line()) },
//	})
//
// Any other call, for example a read-class tool whose failure is
// transient, goes through Do with its own Retryable:
//
//	res, err := retry.Do(ctx, p, func(ctx context.Context) (string, error) {
//		return fetch(ctx)
//	})
package retry
