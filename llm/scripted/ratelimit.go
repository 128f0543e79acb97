package scripted

import (
	"cmp"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
)

// RateLimitConfig configures RateLimit. Limit is required; every other
// zero field takes its default.
type RateLimitConfig struct {
	// Limit is the most requests accepted in any window of length Per.
	// Required (at least 1).
	Limit int
	// Per is the window's length. Default one minute.
	Per time.Duration
	// NoHeaders sends no rate-limit headers at all: a request over the
	// limit gets a bare 429 with a Retry-After in whole seconds, as some
	// OpenAI-compatible servers and proxies answer, so that a client's
	// learning from 429s alone can be tested. Default false: every reply
	// carries the provider's rate-limit headers, and a 429 also carries
	// retry-after-ms.
	NoHeaders bool
	// Clock tells the time of each request. Default clock.Real{}.
	Clock clock.Clock
	// Log, when set, gets one line per request answered 429. Default: no
	// log.
	Log io.Writer
}

// RateLimitStats counts what a RateLimiter answered.
type RateLimitStats struct {
	// Accepted is the number of requests passed on to the wrapped handler.
	Accepted int
	// Limited is the number of requests answered 429.
	Limited int
}

// RateLimiter is an http.Handler that enforces a sliding-window request
// limit in front of another handler, the way a provider's rate limit
// stands in front of its model: it counts and limits the model calls
// (POST /v1/messages, /v1/chat/completions, /chat/completions); the other
// routes (the model list, token counting, a local server's /props) pass
// through uncounted, as they do not take the model's requests. Requests
// over the limit are answered 429
// in the wire format of their route and do not count against the window.
// Every reply (unless NoHeaders) carries the rate-limit headers of the
// provider whose route was called:
//
//   - /v1/messages (Anthropic): anthropic-ratelimit-requests-limit,
//     -remaining and -reset, the reset an RFC 3339 time with milliseconds;
//   - any other route (OpenAI): x-ratelimit-limit-requests,
//     x-ratelimit-remaining-requests and x-ratelimit-reset-requests, the
//     reset a duration such as "1s" or "6m0s".
//
// The reset is when the window is whole again (the newest counted request
// leaves it), which is what both providers document. It is safe for
// concurrent use.
type RateLimiter struct {
	next  http.Handler
	cfg   RateLimitConfig
	clock clock.Clock

	mu     sync.Mutex
	times  []time.Time // starts of the accepted requests still in the window, oldest first
	stats  RateLimitStats
	logMu  sync.Mutex
	logOut io.Writer
}

var _ http.Handler = (*RateLimiter)(nil)

// RateLimit returns next behind a sliding-window rate limit. It panics if
// cfg.Limit is below 1: a limit that admits nothing is a programming
// error, not a scenario.
func RateLimit(next http.Handler, cfg RateLimitConfig) *RateLimiter {
	if cfg.Limit < 1 {
		panic(fmt.Sprintf("scripted: rate limit %d: want at least 1 request per window", cfg.Limit))
	}
	cfg.Per = cmp.Or(cfg.Per, time.Minute)
	return &RateLimiter{
		next:   next,
		cfg:    cfg,
		clock:  cmp.Or[clock.Clock](cfg.Clock, clock.Real{}),
		logOut: cfg.Log,
	}
}

// Stats returns the counts so far.
func (rl *RateLimiter) Stats() RateLimitStats {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return rl.stats
}

// admission is the limiter's decision on one request.
type admission struct {
	ok        bool
	remaining int
	reset     time.Time     // when the window is whole again
	wait      time.Duration // until the next slot frees, when refused
}

// admit counts a request at now if the window has room.
func (rl *RateLimiter) admit(now time.Time) admission {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	cut := now.Add(-rl.cfg.Per)
	i := 0
	for i < len(rl.times) && !rl.times[i].After(cut) {
		i++
	}
	rl.times = append(rl.times[:0], rl.times[i:]...)
	a := admission{ok: len(rl.times) < rl.cfg.Limit}
	if a.ok {
		rl.times = append(rl.times, now)
		rl.stats.Accepted++
	} else {
		rl.stats.Limited++
		a.wait = rl.times[0].Add(rl.cfg.Per).Sub(now)
	}
	a.remaining = rl.cfg.Limit - len(rl.times)
	a.reset = now
	if n := len(rl.times); n > 0 {
		a.reset = rl.times[n-1].Add(rl.cfg.Per)
	}
	return a
}

// ServeHTTP answers 429 when the window is full and passes the request on
// otherwise, with the rate-limit headers set either way.
func (rl *RateLimiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !modelCall(r) {
		rl.next.ServeHTTP(w, r)
		return
	}
	now := rl.clock.Now()
	a := rl.admit(now)
	anthropic := r.URL.Path == "/v1/messages"
	if !rl.cfg.NoHeaders {
		setRateHeaders(w.Header(), anthropic, rl.cfg.Limit, a, now)
	}
	if a.ok {
		rl.next.ServeHTTP(w, r)
		return
	}
	// Retry-After in whole seconds, rounded up: a client that honours it
	// never comes back before the slot is free.
	secs := int64((a.wait + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.FormatInt(max(secs, 1), 10))
	if !rl.cfg.NoHeaders {
		w.Header().Set("retry-after-ms", strconv.FormatInt(max(a.wait.Milliseconds(), 1), 10))
	}
	rl.logf("%s: 429 rate limited (%d per %s); next slot in %s", r.URL.Path, rl.cfg.Limit, rl.cfg.Per, a.wait.Round(time.Millisecond))
	body := ErrorBody{
		Type:    "rate_limit_error",
		Message: fmt.Sprintf("scripted rate limit: at most %d requests per %s", rl.cfg.Limit, rl.cfg.Per),
	}
	var d dialect = openaiDialect{}
	if anthropic {
		d = anthropicDialect{}
	} else {
		body.Type, body.Code = "requests", "rate_limit_exceeded"
	}
	rid := newID("req_", 24)
	w.Header().Set(d.requestIDHeader(), rid)
	d.writeError(w, http.StatusTooManyRequests, body, rid)
}

// modelCall reports whether r is a call a model answers.
func modelCall(r *http.Request) bool {
	switch r.URL.Path {
	case "/v1/messages", "/v1/chat/completions", "/chat/completions":
		return r.Method == http.MethodPost
	}
	return false
}

// rfc3339Milli is RFC 3339 with milliseconds: a window of a few seconds
// needs a finer reset than whole seconds.
const rfc3339Milli = "2006-01-02T15:04:05.000Z07:00"

// setRateHeaders writes one provider's request rate-limit headers.
func setRateHeaders(h http.Header, anthropic bool, limit int, a admission, now time.Time) {
	lim, rem := strconv.Itoa(limit), strconv.Itoa(a.remaining)
	if anthropic {
		h.Set("anthropic-ratelimit-requests-limit", lim)
		h.Set("anthropic-ratelimit-requests-remaining", rem)
		h.Set("anthropic-ratelimit-requests-reset", a.reset.UTC().Format(rfc3339Milli))
		return
	}
	h.Set("x-ratelimit-limit-requests", lim)
	h.Set("x-ratelimit-remaining-requests", rem)
	h.Set("x-ratelimit-reset-requests", a.reset.Sub(now).Round(time.Millisecond).String())
}

func (rl *RateLimiter) logf(format string, args ...any) {
	if rl.logOut == nil {
		return
	}
	rl.logMu.Lock()
	defer rl.logMu.Unlock()
	fmt.Fprintf(rl.logOut, "sim: "+format+"\n", args...)
}
