package retry_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
)

// Regression (issue 13): with nothing known of the limit, a batch of fifty
// sent its second wave of calls all at once into a server that answers
// only bare 429s, and forty of them were refused before the first 429
// came back (16.7% of the batch's calls). A limiter that knows nothing
// keeps one call in flight, and twice as many every second.
func TestLimiterKeepsFewCallsInFlightWhileTheLimitIsUnknown(t *testing.T) {
	ctx := context.Background()
	t.Run("a second caller waits until the first call reports back", func(t *testing.T) {
		clk := &blockingClock{sleeping: make(chan struct{})}
		l := retry.NewLimiter(retry.LimiterConfig{Clock: clk})
		if err := l.Wait(ctx, 0); err != nil {
			t.Fatal(err)
		}
		done := make(chan error)
		go func() { done <- l.Wait(ctx, 0) }()
		<-clk.sleeping // the second caller waits, and only the first call's end can wake it
		l.Observe(nil, nil)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := l.State().InFlight; got != 1 {
			t.Errorf("in flight = %d, want 1", got)
		}
	})
	t.Run("the room doubles every second", func(t *testing.T) {
		c := clock.NewFake(epoch)
		l := retry.NewLimiter(retry.LimiterConfig{Clock: c})
		started := func(n int) {
			t.Helper()
			for range n {
				if err := l.Wait(ctx, 0); err != nil {
					t.Fatal(err)
				}
			}
		}
		started(1) // the probe starts at epoch
		c.Advance(time.Second)
		started(1) // room for 2
		c.Advance(time.Second)
		started(2) // room for 4
		if got := c.Now(); !got.Equal(epoch.Add(2 * time.Second)) {
			t.Errorf("the calls started at %s, want all without waiting, by %s", got, epoch.Add(2*time.Second))
		}
		started(1) // the fifth waits for the room of 8
		if got, want := c.Now(), epoch.Add(3*time.Second); got.Before(want) {
			t.Errorf("the fifth call started at %s, want at %s or later", got, want)
		}
		if got := l.State().InFlight; got != 5 {
			t.Errorf("in flight = %d, want 5", got)
		}
	})
	t.Run("rate-limit headers end the probe", func(t *testing.T) {
		c := &frozenClock{now: epoch}
		l := retry.NewLimiter(retry.LimiterConfig{Clock: c})
		l.Wait(ctx, 0)
		l.Observe(http.Header{"X-Ratelimit-Remaining-Requests": {"1000"}, "X-Ratelimit-Reset-Requests": {"1ms"}}, nil)
		for range 10 {
			if err := l.Wait(ctx, 0); err != nil {
				t.Fatal(err)
			}
		}
		if got := l.State().InFlight; got != 10 {
			t.Errorf("in flight = %d, want all 10 started", got)
		}
	})
	t.Run("a hand-set rate needs no probe", func(t *testing.T) {
		c := &frozenClock{now: epoch}
		l := retry.NewLimiter(retry.LimiterConfig{Clock: c, RPM: 6000})
		for range 10 {
			if err := l.Wait(ctx, 0); err != nil {
				t.Fatal(err)
			}
		}
		if got := l.State().InFlight; got != 10 {
			t.Errorf("in flight = %d, want all 10 started", got)
		}
	})
	t.Run("a caller that gives up waiting leaves no call in flight", func(t *testing.T) {
		clk := &blockingClock{sleeping: make(chan struct{})}
		l := retry.NewLimiter(retry.LimiterConfig{Clock: clk})
		l.Observe(nil, &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: time.Minute})
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan error)
		go func() { done <- l.Wait(cctx, 0) }()
		<-clk.sleeping // its turn is booked after the minute's hold
		if got := l.State().InFlight; got != 1 {
			t.Errorf("in flight while waiting for the turn = %d, want 1", got)
		}
		cancel()
		if err := <-done; err == nil {
			t.Fatal("Wait on an ended context returned nil")
		}
		if got := l.State().InFlight; got != 0 {
			t.Errorf("in flight = %d, want 0", got)
		}
	})
}

// A 429 from a server that sends rate-limit headers is waited out, but
// teaches no rate of its own: the headers say what the limit is, and a
// 429 at their pace is the bad luck of timing (or another user of the
// key), not a sign that the pace is a quarter too fast.
func TestLimiterLearnsNoRateFromA429WithHeaders(t *testing.T) {
	s := time.Second
	c := &frozenClock{now: epoch}
	l := retry.NewLimiter(retry.LimiterConfig{Clock: c})
	h := header("x-ratelimit-limit-requests", "60", "x-ratelimit-remaining-requests", "30", "x-ratelimit-reset-requests", "30s")
	for range 10 {
		l.Wait(context.Background(), 0)
		l.Observe(h, nil)
		c.Advance(s)
	}
	l.Observe(nil, &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: 2 * s,
		Header: header("x-ratelimit-limit-requests", "60", "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "1s")})
	st := l.State()
	if st.LearnedRPM != 0 {
		t.Errorf("learned %v rpm from a 429 with headers, want none", st.LearnedRPM)
	}
	if !st.BlockedUntil.Equal(c.Now().Add(2 * s)) {
		t.Errorf("blocked until %s, want the Retry-After, %s", st.BlockedUntil, c.Now().Add(2*s))
	}
}
