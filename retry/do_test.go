package retry_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
)

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// script returns a call that fails with errs in order, then succeeds with
// "ok", and a counter of the calls made.
func script(errs ...error) (func(context.Context) (string, error), *int) {
	var mu sync.Mutex
	n := 0
	return func(context.Context) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n <= len(errs) {
			return "", errs[n-1]
		}
		return "ok", nil
	}, &n
}

// statusErr is a provider failure classified the way providers do it.
func statusErr(status int, errType, msg string) *llm.Error {
	return &llm.Error{Provider: "test", Status: status, Type: errType, Message: msg,
		Class: llm.ClassifyStatus(status, errType, msg)}
}

func repeat(err error, n int) []error {
	out := make([]error, n)
	for i := range out {
		out[i] = err
	}
	return out
}

// constRand makes the jitter predictable.
func constRand(r float64) func() float64 { return func() float64 { return r } }

func TestDoRetriesOnlyWrongTiming(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		retry bool
	}{
		{"a rate-limit 429 is retried", statusErr(429, "rate_limit_error", "slow down"), true},
		{"Anthropic's overloaded 529 is retried", statusErr(529, "overloaded_error", "overloaded"), true},
		{"a 503 is retried", statusErr(503, "", "unavailable"), true},
		{"a 500 is retried", statusErr(500, "api_error", "internal"), true},
		{"a 502 is retried", statusErr(502, "", "bad gateway"), true},
		{"a 504 is retried", statusErr(504, "", "gateway timeout"), true},
		{"a 408 request timeout is retried", statusErr(408, "", "timeout"), true},
		{"a timeout without a response is retried", &llm.Error{Class: llm.Timeout}, true},
		{"a dropped connection is retried", &llm.Error{Class: llm.Connection, Err: errors.New("EOF")}, true},
		{"a caller's deadline inside the call is retried as a timeout", context.DeadlineExceeded, true},
		{"a 400 bad request is not retried", statusErr(400, "invalid_request_error", "bad"), false},
		{"a 401 is not retried", statusErr(401, "authentication_error", "no"), false},
		{"a 403 is not retried", statusErr(403, "permission_error", "no"), false},
		{"a 404 is not retried", statusErr(404, "not_found_error", "no model"), false},
		{"a 413 is not retried", statusErr(413, "request_too_large", "big"), false},
		{"a 422 is not retried", statusErr(422, "", "unprocessable"), false},
		{"a quota 429 is not retried", statusErr(429, "insufficient_quota", "You exceeded your current quota"), false},
		{"a quota 400 is not retried", statusErr(400, "invalid_request_error", "Your credit balance is too low"), false},
		{"a malformed reply is not retried", &llm.Error{Class: llm.Malformed}, false},
		{"an unclassified error is not retried", errors.New("bug"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fn, calls := script(repeat(tt.err, 10)...)
			p := retry.Policy{Retries: 2, Clock: clock.NewFake(epoch), Rand: constRand(0)}
			_, err := retry.Do(context.Background(), p, fn)
			if tt.retry {
				if *calls != 3 {
					t.Errorf("calls = %d, want 3 (retried twice)", *calls)
				}
				if !errors.Is(err, retry.ErrExhausted) {
					t.Errorf("err = %v, want it to match ErrExhausted", err)
				}
				return
			}
			if *calls != 1 {
				t.Errorf("calls = %d, want 1 (never retried)", *calls)
			}
			if err != tt.err {
				t.Errorf("err = %v, want the call's own error, unwrapped", err)
			}
		})
	}
}

func TestDoMakesAtMostRetriesPlusOneCalls(t *testing.T) {
	overloaded := statusErr(529, "overloaded_error", "overloaded")
	for _, n := range []int{0, 1, 3, 5} {
		t.Run("with retries "+strconv.Itoa(n)+" it calls "+strconv.Itoa(n+1)+" times", func(t *testing.T) {
			fn, calls := script(repeat(overloaded, 20)...)
			_, err := retry.Do(context.Background(), retry.Policy{Retries: retry.Count(n), Clock: clock.NewFake(epoch)}, fn)
			if *calls != n+1 {
				t.Errorf("calls = %d, want %d", *calls, n+1)
			}
			var ex *retry.ExhaustedError
			if !errors.As(err, &ex) || ex.Attempts != n+1 {
				t.Errorf("err = %v, want an ExhaustedError after %d attempts", err, n+1)
			}
		})
	}
	t.Run("a call that recovers in time returns its result", func(t *testing.T) {
		fn, calls := script(overloaded, overloaded)
		got, err := retry.Do(context.Background(), retry.Policy{Retries: 2, Clock: clock.NewFake(epoch)}, fn)
		if err != nil || got != "ok" || *calls != 3 {
			t.Errorf("got %q, %v after %d calls; want ok, nil after 3", got, err, *calls)
		}
	})
}

func TestDoWaits(t *testing.T) {
	s := time.Second
	transient := statusErr(500, "api_error", "internal")
	tests := []struct {
		name string
		p    retry.Policy
		err  error
		want []time.Duration
	}{
		{
			name: "waits double from the backoff with the jitter taken off",
			p:    retry.Policy{Retries: 4, Rand: constRand(0.5)},
			err:  transient,
			// Default jitter 0.2 times the injected 0.5 takes 10% off.
			want: []time.Duration{s * 9 / 10, 2 * s * 9 / 10, 4 * s * 9 / 10, 8 * s * 9 / 10},
		},
		{
			name: "the first wait stays above 800ms with the largest jitter",
			p:    retry.Policy{Retries: 1, Rand: constRand(0.999999)},
			err:  transient,
			want: []time.Duration{s - time.Duration(float64(s)*0.2*0.999999)},
		},
		{
			name: "waits stop growing at the cap",
			p:    retry.Policy{Retries: 6, MaxBackoff: 5 * s, Jitter: -1},
			err:  transient,
			want: []time.Duration{s, 2 * s, 4 * s, 5 * s, 5 * s, 5 * s},
		},
		{
			name: "a slower backoff doubles from its own start",
			p:    retry.Policy{Retries: 3, Backoff: 2 * s, Jitter: -1},
			err:  transient,
			want: []time.Duration{2 * s, 4 * s, 8 * s},
		},
		{
			name: "a longer retry-after raises the wait",
			p:    retry.Policy{Retries: 2, Rand: constRand(0)},
			err:  &llm.Error{Class: llm.Overloaded, Status: 503, RetryAfter: llm.RetryAfter(http.Header{"Retry-After": {"3"}}, epoch)},
			want: []time.Duration{3 * s, 3 * s},
		},
		{
			name: "retry-after-ms raises the wait too",
			p:    retry.Policy{Retries: 1, Rand: constRand(0)},
			err:  &llm.Error{Class: llm.Overloaded, Status: 529, RetryAfter: llm.RetryAfter(http.Header{"Retry-After-Ms": {"2500"}}, epoch)},
			want: []time.Duration{2500 * time.Millisecond},
		},
		{
			name: "a retry-after below the backoff is waited as it is",
			p:    retry.Policy{Retries: 3, Rand: constRand(0)},
			err:  &llm.Error{Class: llm.Overloaded, Status: 503, RetryAfter: 500 * time.Millisecond},
			want: []time.Duration{500 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond},
		},
		{
			name: "a retry-after wait is spread by up to the jitter of the backoff",
			p:    retry.Policy{Retries: 1, Rand: constRand(0.5)},
			err:  &llm.Error{Class: llm.Overloaded, Status: 503, RetryAfter: 3 * s},
			want: []time.Duration{3*s + time.Duration(float64(s)*0.2*0.5)},
		},
		{
			name: "a short retry-after is spread by up to the jitter of itself",
			p:    retry.Policy{Retries: 1, Rand: constRand(0.5)},
			err:  &llm.Error{Class: llm.Overloaded, Status: 503, RetryAfter: 100 * time.Millisecond},
			want: []time.Duration{100*time.Millisecond + time.Duration(float64(100*time.Millisecond)*0.2*0.5)},
		},
		{
			name: "a 429 without retry-after waits for its exhausted window's next request",
			p:    retry.Policy{Budget: s, Rand: constRand(0)},
			err: &llm.Error{Class: llm.RateLimited, Status: 429, Header: header(
				"x-ratelimit-limit-requests", "60", "x-ratelimit-remaining-requests", "0",
				"x-ratelimit-reset-requests", "30s")},
			want: []time.Duration{s / 2, s / 2},
		},
		{
			name: "blind failures after server-timed ones back off from the start",
			p:    retry.Policy{Retries: 3, Rand: constRand(0)},
			err:  &llm.Error{Class: llm.Overloaded, Status: 529, RetryAfter: 5 * s},
			want: []time.Duration{5 * s, 5 * s, 5 * s},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := clock.NewFake(epoch)
			tt.p.Clock = fake
			var reported []time.Duration
			tt.p.OnRetry = func(a retry.Attempt) { reported = append(reported, a.Wait) }
			fn, _ := script(repeat(tt.err, 20)...)
			retry.Do(context.Background(), tt.p, fn)
			if diff := cmp.Diff(tt.want, fake.Waits()); diff != "" {
				t.Errorf("clock waits (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(roundMS(tt.want), reported); diff != "" {
				t.Errorf("reported waits (-want +got):\n%s", diff)
			}
		})
	}
}

func roundMS(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}

// Regression (issue 13): consecutive 429s that each said "retry after 1s"
// were waited 1.1s, 1.7s, 3.9s, 7.6s, 13.6s, 26.2s, 31.7s: the backoff
// grew on top of what the server said, while the limit freed a slot
// every half second. The wait is the Retry-After plus a small spread,
// however many came before.
func TestRetryAfterIsNotGrownExponentially(t *testing.T) {
	const n = 7
	limited := &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: time.Second}
	fake := clock.NewFake(epoch)
	var lines []string
	p := retry.Policy{Retries: 0, Clock: fake, Rand: constRand(0.1),
		OnRetry: func(a retry.Attempt) { lines = append(lines, a.Line()) }}
	fn, _ := script(repeat(limited, n)...)
	if _, err := retry.Do(context.Background(), p, fn); err != nil {
		t.Fatal(err)
	}
	for i, w := range fake.Waits() {
		if w < time.Second || w > time.Second*12/10 {
			t.Errorf("wait %d = %s, want the 1s Retry-After plus at most 20%%", i+1, w)
		}
	}
	if want := "status=429 attempt=7 wait=1020ms retry-after=1s"; len(lines) != n || lines[n-1] != want {
		t.Errorf("lines = %q, want %d ending %q", lines, n, want)
	}
}
