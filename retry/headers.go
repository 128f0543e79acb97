package retry

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// window is one rate-limit dimension as a response's headers describe it:
// how much of the limit is left and when it is whole again.
type window struct {
	limit     float64 // 0 when not sent
	remaining float64
	reset     time.Time
}

// requestHeaders and tokenHeaders name the rate-limit headers of each
// provider as (limit, remaining, reset). Anthropic sends RFC 3339 reset
// times; OpenAI sends durations such as "1s", "6m0s" or "20ms".
var (
	requestHeaders = [][3]string{
		{"anthropic-ratelimit-requests-limit", "anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset"},
		{"x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests"},
	}
	tokenHeaders = [][3]string{
		{"anthropic-ratelimit-tokens-limit", "anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-reset"},
		{"anthropic-ratelimit-input-tokens-limit", "anthropic-ratelimit-input-tokens-remaining", "anthropic-ratelimit-input-tokens-reset"},
		{"anthropic-ratelimit-output-tokens-limit", "anthropic-ratelimit-output-tokens-remaining", "anthropic-ratelimit-output-tokens-reset"},
		{"x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"},
	}
)

// readWindows returns the windows h describes among names, skipping any
// whose remaining count or reset time is missing or unreadable.
func readWindows(h http.Header, names [][3]string, now time.Time) []window {
	var out []window
	for _, n := range names {
		rem, ok := parseCount(h.Get(n[1]))
		if !ok {
			continue
		}
		reset, ok := parseReset(h.Get(n[2]), now)
		if !ok {
			continue
		}
		lim, _ := parseCount(h.Get(n[0]))
		out = append(out, window{limit: lim, remaining: rem, reset: reset})
	}
	return out
}

func parseCount(v string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 {
		return 0, false
	}
	return f, true
}

// parseReset reads a reset as an RFC 3339 time (Anthropic), a Go-style
// duration (OpenAI: "1s", "6m0s", "20ms") or a number of seconds.
func parseReset(v string, now time.Time) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, true
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(d), true
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return now.Add(time.Duration(s * float64(time.Second))), true
	}
	return time.Time{}, false
}

// resetWait is how long until the request windows h names give back a
// request when one of them has none left: the providers' limits refill
// continuously, so one request comes back after the window's time over
// its limit, or at the reset when no limit is sent. It is the longest
// such wait, or zero when no request window is exhausted. Token windows
// are not read: how many tokens the refused call needs is not known here,
// so a refusal for tokens without a Retry-After backs off instead.
func resetWait(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	var d time.Duration
	for _, w := range readWindows(h, requestHeaders, now) {
		left := w.reset.Sub(now)
		if w.remaining >= 1 || left <= 0 {
			continue
		}
		if w.limit >= 1 {
			left = time.Duration(float64(left) / w.limit)
		}
		d = max(d, left)
	}
	return d
}
