package retry

import (
	"cmp"
	"math/rand/v2"
	"time"

	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
)

// Defaults of a Policy's zero fields.
const (
	DefaultRetries    = 3
	DefaultBackoff    = time.Second
	DefaultMaxBackoff = 60 * time.Second
	DefaultJitter     = 0.2
	DefaultBudget     = 10 * time.Minute
)

// NoRetries is the Retries of a policy that makes one call and never
// retries it. "None" is said explicitly, because a zero Policy, like every
// zero config in nightshift, means the defaults.
const NoRetries = -1

// Count turns a count a person wrote (`--retries N`, `retries: N` in a
// task file, where 0 means none) into a Policy's Retries (where 0 means
// the default): 0 becomes NoRetries, any other count stays as it is.
func Count(n int) int {
	if n == 0 {
		return NoRetries
	}
	return n
}

// Policy says when and how long to retry. Every zero field takes its
// default: the zero Policy retries 3 times, backing off from 1s, within
// a 10m budget.
type Policy struct {
	// Retries is how many retries may follow the first call: N means at
	// most N+1 calls. Default 3 (DefaultRetries); a negative count
	// (NoRetries) means none. 429s that carry a Retry-After do not count
	// against it (see Budget).
	Retries int
	// Backoff is the wait before the first retry of a failure that says
	// nothing about when to come back; it doubles with each such retry
	// after that. A failure whose server says when (Retry-After, or a
	// rate-limit reset) waits that long instead. Default 1s.
	Backoff time.Duration
	// MaxBackoff caps the computed wait (not the server's Retry-After).
	// Default 60s.
	MaxBackoff time.Duration
	// Jitter is the fraction taken off the computed wait at random, in
	// [0, 1): with Backoff 1s the first retry waits in (800ms, 1000ms].
	// A wait the server named gets up to this fraction of it added
	// instead (at most Jitter*Backoff). Default 0.2; a negative value
	// turns jitter off.
	Jitter float64
	// Budget is the total wait allowed across the retries of one call.
	// A rate-limit 429 with a Retry-After is waited out within it rather
	// than counted against Retries; a wait that would overrun it ends the
	// call with an ExhaustedError. Default 10m; negative means no budget.
	Budget time.Duration
	// CallTimeout, when positive, bounds each attempt. An attempt that
	// hits it while the caller's context is alive fails with a retryable
	// Timeout-class *llm.Error. Default none.
	CallTimeout time.Duration
	// Clock waits between attempts. Default clock.Real{}.
	Clock clock.Clock
	// Rand returns a number in [0, 1) for the jitter. Default
	// math/rand/v2.Float64; tests inject a constant.
	Rand func() float64
	// Retryable decides which errors are retried. Default: the error's
	// llm.Class is retryable (llm.ClassOf(err).Retryable()).
	Retryable func(err error) bool
	// OnRetry, when set, is called before each wait.
	OnRetry func(Attempt)
	// Limiter, when set, paces the model calls made through Wrap: each
	// attempt first waits for its turn (outside CallTimeout and Budget,
	// bounded by the caller's context) and then reports the response's
	// rate-limit headers or its error back. Do alone does not use it.
	// Default none.
	Limiter *Limiter
	// Breaker, when set, is the circuit breaker of the endpoint the calls
	// go to (package breaker): each attempt first waits while it is open,
	// within Budget (the wait counts against it, as a retry's does), and
	// then reports how it went. An outage failure after which the breaker
	// is open does not count against Retries: the breaker bounds it, and a
	// call that could not wait for it to close within the budget fails
	// with a *breaker.UnavailableError (breaker.ErrUnavailable). Default
	// none.
	Breaker *breaker.Breaker
	// FailOnOpen makes a call that finds Breaker open (or its probe out
	// with another caller) fail at once with a *breaker.UnavailableError
	// instead of waiting on it, and so does a call whose outage failure
	// leaves it open: a call with a fallback model on another endpoint
	// (package callstack sets it on the primary) goes there instead of
	// waiting for this one to come back. Default false: wait within
	// Budget.
	FailOnOpen bool
	// OnBreaker, when set, receives the breaker's events (it opened, this
	// call probes, it closed).
	OnBreaker func(event.Event)
}

// withDefaults returns p with every zero field set to its default.
func (p Policy) withDefaults() Policy {
	switch {
	case p.Retries == 0:
		p.Retries = DefaultRetries
	case p.Retries < 0:
		p.Retries = 0
	}
	p.Backoff = cmp.Or(p.Backoff, DefaultBackoff)
	p.MaxBackoff = max(cmp.Or(p.MaxBackoff, DefaultMaxBackoff), p.Backoff)
	switch {
	case p.Jitter == 0:
		p.Jitter = DefaultJitter
	case p.Jitter < 0:
		p.Jitter = 0
	case p.Jitter >= 1:
		// A full jitter could make the wait zero: punching the server
		// point-blank is what backoff exists to prevent.
		p.Jitter = 0.99
	}
	p.Budget = cmp.Or(p.Budget, DefaultBudget)
	if p.Clock == nil {
		p.Clock = clock.Real{}
	}
	if p.Rand == nil {
		p.Rand = rand.Float64
	}
	if p.Retryable == nil {
		p.Retryable = func(err error) bool { return llm.ClassOf(err).Retryable() }
	}
	if p.OnRetry == nil {
		p.OnRetry = func(Attempt) {}
	}
	return p
}

// backoff is the computed wait before retry k (1-based), before jitter:
// Backoff * 2^(k-1), capped at MaxBackoff.
func (p Policy) backoff(k int) time.Duration {
	d := p.Backoff
	for i := 1; i < k && d < p.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, p.MaxBackoff)
}

// wait is the wait before a retry. When the server said when to come back
// (cause CauseRetryAfter or CauseReset: a Retry-After, or the reset of an
// exhausted rate-limit window), the wait is that time plus a spread of up
// to Jitter of it (at most Jitter*Backoff), so that several processes
// told the same time do not all call again at the same instant; it never
// grows on top of what the server said (issue 13: a process told "retry
// after 1s" waited 1.1s, 1.7s, 3.9s ... 31.7s while a slot freed every
// half second). Otherwise (CauseBackoff) d is the exponential backoff of
// the blind failure, and the jitter is taken off it.
func (p Policy) wait(d time.Duration, cause string) time.Duration {
	r := p.Rand()
	if cause != CauseBackoff {
		return d + time.Duration(float64(min(d, p.Backoff))*p.Jitter*r)
	}
	return d - time.Duration(float64(d)*p.Jitter*r)
}
