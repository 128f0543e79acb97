package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
)

func TestOnRetryLines(t *testing.T) {
	tests := []struct {
		name string
		errs []error
		want []string
	}{
		{
			name: "a 429 reads as the seed's line",
			errs: []error{statusErr(429, "rate_limit_error", "slow down")},
			want: []string{"status=429 attempt=1 wait=1000ms backoff=1s"},
		},
		{
			name: "failures without a status name their class",
			errs: []error{&llm.Error{Class: llm.Timeout}, &llm.Error{Class: llm.Connection}},
			want: []string{"error=timeout attempt=1 wait=1000ms backoff=1s", "error=connection attempt=2 wait=2000ms backoff=2s"},
		},
		{
			name: "an unclassified error says unknown",
			errs: []error{errors.New("flaky")},
			want: []string{"error=unknown attempt=1 wait=1000ms backoff=1s"},
		},
		{
			name: "a wait the server named says so, with the jitter on top",
			errs: []error{&llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: time.Second}},
			want: []string{"status=429 attempt=1 wait=1000ms retry-after=1s"},
		},
		{
			name: "a wait read from the rate-limit reset says so",
			errs: []error{&llm.Error{Class: llm.RateLimited, Status: 429, Header: header(
				"x-ratelimit-limit-requests", "2", "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "1s")}},
			want: []string{"status=429 attempt=1 wait=500ms reset=500ms"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lines []string
			p := retry.Policy{
				Retries:   3,
				Clock:     clock.NewFake(epoch),
				Rand:      constRand(0),
				Retryable: func(error) bool { return true },
				OnRetry:   func(a retry.Attempt) { lines = append(lines, a.Line()) },
			}
			fn, _ := script(tt.errs...)
			if _, err := retry.Do(context.Background(), p, fn); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAttemptEvent(t *testing.T) {
	err := &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: 2 * time.Second}
	var got []retry.Attempt
	p := retry.Policy{Retries: 1, Clock: clock.NewFake(epoch), Rand: constRand(0),
		OnRetry: func(a retry.Attempt) { got = append(got, a) }}
	fn, _ := script(err)
	retry.Do(context.Background(), p, fn)
	if len(got) != 1 {
		t.Fatalf("got %d attempts, want 1", len(got))
	}
	e := got[0].Event()
	want := map[string]any{
		"attempt": 1, "wait_ms": int64(2000), "class": "rate-limited", "status": 429,
		"cause": "retry-after", "error": err.Error(),
	}
	if e.Type != "retry" || e.Line() != "[retry · status=429 attempt=1 wait=2000ms retry-after=2s]" {
		t.Errorf("event line = %q", e.Line())
	}
	if diff := cmp.Diff(want, e.Data); diff != "" {
		t.Errorf("event data (-want +got):\n%s", diff)
	}
}
