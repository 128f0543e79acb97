// Package retry is the one retry layer of nightshift. It retries only
// "wrong timing" (rate limits, overloads, transient 5xx, timeouts, dropped
// connections) and never "wrong content" (bad requests, auth, quota): a 400
// resent ten thousand times is still a 400 (seed 000, section 4.2).
//
// A failure whose server says when to come back (a Retry-After, or the
// reset of an exhausted rate-limit window) waits that long plus a small
// spread, never more however many came before. Failures that say nothing
// wait an exponential backoff from Policy.Backoff with jitter taken off,
// capped at Policy.MaxBackoff. Every wait goes through an injected clock,
// so tests never sleep, and every retry is reported to Policy.OnRetry
// before its wait, so it can be printed as the human line
// `[retry · status=429 attempt=1 wait=1020ms retry-after=1s]`.
//
// Policy.Retries bounds the retries of overloads, 5xx and rate limits that
// give no Retry-After: `--retries N` means at most N+1 calls. A 429 that
// says how long to wait is waited out within Policy.Budget instead, the
// total wait allowed per call.
//
// A Limiter, shared by every run in the process through a Limiters
// registry, paces the calls made under one provider credential: it learns
// the limit from rate-limit headers and from 429s, and can be set by hand.
// With LimiterConfig.Dir set (OpenLimiter), the processes of a machine
// that call one endpoint with one key share one limiter through a small
// file there, under a file lock, so that separate processes pace as one
// batch.
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
