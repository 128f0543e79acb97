package retry_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
)

// slidingWindow is a server that accepts at most limit calls in any
// window of per, as `sim serve --limit N --per W --no-headers` does: the
// rest get a bare 429 whose Retry-After is the wait for the next free
// slot, rounded up to whole seconds. Until stormUntil it refuses every
// call, as when someone else's burst fills the limit.
type slidingWindow struct {
	limit      int
	per        time.Duration
	stormUntil time.Time
	times      []time.Time
	accepted   int
	refused    int
}

func (s *slidingWindow) call(now time.Time) error {
	cut := now.Add(-s.per)
	i := 0
	for i < len(s.times) && !s.times[i].After(cut) {
		i++
	}
	s.times = s.times[i:]
	if now.Before(s.stormUntil) {
		s.refused++
		return &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: time.Second}
	}
	if len(s.times) < s.limit {
		s.times = append(s.times, now)
		s.accepted++
		return nil
	}
	s.refused++
	wait := s.times[0].Add(s.per).Sub(now)
	whole := (wait + time.Second - 1) / time.Second * time.Second
	return &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: max(time.Second, whole)}
}

// rpm is the server's limit in requests a minute.
func (s *slidingWindow) rpm() float64 {
	return float64(s.limit) * float64(time.Minute) / float64(s.per)
}

// callUntil makes calls one after another through the limiters in turn
// (each a process sharing the file, or one limiter alone) until the fake
// clock reaches end; every call takes latency.
func callUntil(t *testing.T, clk *clock.Fake, srv *slidingWindow, ls []*retry.Limiter, end time.Time) {
	t.Helper()
	const latency = 20 * time.Millisecond
	for i := 0; clk.Now().Before(end); i++ {
		l := ls[i%len(ls)]
		if err := l.Wait(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		err := srv.call(clk.Now())
		clk.Advance(latency)
		l.Observe(nil, err)
	}
}

// windowsTo80 calls on until the learned rate reaches 80 % of the
// server's limit, and returns how many of the server's windows that took
// (from the clock's time now), at most max.
func windowsTo80(t *testing.T, clk *clock.Fake, srv *slidingWindow, ls []*retry.Limiter, max int) (int, []float64) {
	t.Helper()
	var trail []float64
	for w := 1; w <= max; w++ {
		callUntil(t, clk, srv, ls, clk.Now().Add(srv.per))
		got := ls[0].State().LearnedRPM
		trail = append(trail, got/srv.rpm())
		if got >= 0.8*srv.rpm() {
			return w, trail
		}
	}
	return max + 1, trail
}

func TestTheRateLearnedFromBare429sClimbsBackWithinTenWindows(t *testing.T) {
	for _, tc := range []struct {
		limit int
		per   time.Duration
	}{
		{2, time.Second},
		{10, 6 * time.Second},
		{60, time.Minute},
	} {
		t.Run(fmt.Sprintf("%d per %s: 80 %% of the limit within 10 windows after a storm", tc.limit, tc.per), func(t *testing.T) {
			clk := clock.NewFake(epoch)
			srv := &slidingWindow{limit: tc.limit, per: tc.per}
			l := retry.NewLimiter(retry.LimiterConfig{Clock: clk})
			// Three windows to learn the limit, then a storm of four
			// windows in which every call is refused.
			callUntil(t, clk, srv, []*retry.Limiter{l}, epoch.Add(3*tc.per))
			before := l.State().LearnedRPM
			srv.stormUntil = clk.Now().Add(4 * tc.per)
			callUntil(t, clk, srv, []*retry.Limiter{l}, srv.stormUntil)
			after := l.State().LearnedRPM
			if after >= 0.5*srv.rpm() || after >= before {
				t.Fatalf("learned %.1f rpm before the storm, %.1f after it; want the storm to cut it below half the limit of %.0f", before, after, srv.rpm())
			}
			ok, refused := srv.accepted, srv.refused
			n, trail := windowsTo80(t, clk, srv, []*retry.Limiter{l}, 10)
			t.Logf("learned rpm over the limit, per window after the storm: %.2f; %d calls accepted, %d refused",
				trail, srv.accepted-ok, srv.refused-refused)
			if n > 10 {
				t.Errorf("the learned rate was below 80 %% of the limit after 10 windows: %.2f of it per window", trail)
			}
		})
	}
}

func TestA429CutsTheLearnedRate(t *testing.T) {
	s := time.Second
	c := &frozenClock{now: epoch}
	l := retry.NewLimiter(retry.LimiterConfig{Clock: c})
	for range 12 {
		l.Observe(nil, nil)
		c.Advance(s)
	}
	limited := &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: 5 * s}
	l.Observe(nil, limited) // learns 12 calls over 17s; the window is 5s
	held := l.State().LearnedRPM
	// The pace holds from the end of the hold (5s) for a whole window
	// (5s), and for two calls more than a window holds at the pace (3.5).
	c.Advance(5 * s)
	for range 5 {
		c.Advance(1500 * time.Millisecond)
		l.Observe(nil, nil)
	}
	probe := l.State().LearnedRPM
	if want := held * 9 / 8; probe != want {
		t.Fatalf("learned %v rpm after a window without a 429, want an eighth more, %v", probe, want)
	}
	t.Run("a refused probe goes back to the rate that held", func(t *testing.T) {
		l.Observe(nil, limited)
		if got := l.State().LearnedRPM; got != held {
			t.Errorf("learned %v rpm after the probe's 429, want the %v that held", got, held)
		}
	})
	t.Run("a 429 to the rate that held cuts it by a tenth: the limit is just under", func(t *testing.T) {
		c.Advance(10 * s)
		l.Observe(nil, limited)
		if got, want := l.State().LearnedRPM, held*0.9; got != want {
			t.Errorf("learned %v rpm, want %v", got, want)
		}
	})
	t.Run("a 429 with no rate that held cuts it to three quarters, at each new episode", func(t *testing.T) {
		want := held * 0.9
		for range 3 {
			c.Advance(10 * s)
			l.Observe(nil, limited)
			if want *= 0.75; l.State().LearnedRPM != want {
				t.Errorf("learned %v rpm, want %v", l.State().LearnedRPM, want)
			}
		}
	})
}

func TestLimitersSharingAFileLearnAsOne(t *testing.T) {
	dir := t.TempDir()
	clk := clock.NewFake(epoch)
	srv := &slidingWindow{limit: 10, per: 6 * time.Second}
	ls := []*retry.Limiter{shared(t, dir, clk), shared(t, dir, clk)}
	callUntil(t, clk, srv, ls, epoch.Add(3*srv.per))
	srv.stormUntil = clk.Now().Add(4 * srv.per)
	callUntil(t, clk, srv, ls, srv.stormUntil)
	low := ls[1].State().LearnedRPM
	n, trail := windowsTo80(t, clk, srv, ls, 10)
	t.Logf("learned rpm over the limit, per window after the storm: %.2f", trail)
	if low >= 0.5*srv.rpm() || n > 10 {
		t.Errorf("learned %.1f rpm after the storm, then %.2f of the limit per window; want below half, then 80 %% within 10 windows", low, trail)
	}
	if a, b := ls[0].State().LearnedRPM, ls[1].State().LearnedRPM; a != b {
		t.Errorf("the two limiters learned %v and %v rpm, want one rate", a, b)
	}
	f := fileOf(t, dir)
	for _, k := range []string{"learned_rpm", "window", "good_rpm"} {
		if _, ok := f[k]; !ok {
			t.Errorf("the file has no %s: %v", k, f)
		}
	}
}

// Regression (issue 26): twenty processes with a queue of turns booked
// seconds ahead at an old, slower spacing raised the rate every window on
// calls that went out at the old pace, from 120 a minute to 420, before
// a 429 said so. Calls slower than the pace prove nothing of it.
func TestARateIsNotRaisedByCallsSlowerThanItsPace(t *testing.T) {
	s := time.Second
	c := &frozenClock{now: epoch}
	l := retry.NewLimiter(retry.LimiterConfig{Clock: c})
	for range 12 {
		l.Observe(nil, nil)
		c.Advance(s)
	}
	l.Observe(nil, &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: 5 * s})
	learned := l.State().LearnedRPM // 42 a minute: a call every 1.4s
	c.Advance(5 * s)
	for range 20 { // a call every 3s: 20 a minute
		c.Advance(3 * s)
		l.Observe(nil, nil)
	}
	if got := l.State().LearnedRPM; got != learned {
		t.Errorf("learned %v rpm after a minute of calls at half the pace, want still %v", got, learned)
	}
}

// Regression (issue 26): after a 429, the next turn was booked after the
// last of the turns the hold had voided, so twenty processes, whose queue
// reached ten seconds ahead, left the limit unused that long after every
// refusal (98 s for 40 s of work).
func TestTheFirstTurnAfterA429IsAtTheEndOfItsHold(t *testing.T) {
	c := &frozenClock{now: epoch}
	l := retry.NewLimiter(retry.LimiterConfig{RPM: 60, Clock: c})
	waitsOf(t, l, c, 10, 0) // a queue of turns 0s to 9s ahead
	l.Observe(nil, &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: 2 * time.Second})
	want := []time.Duration{2 * time.Second, 3 * time.Second}
	if got := waitsOf(t, l, c, 2, 0); got[0] != want[0] || got[1] != want[1] {
		t.Errorf("waits after the 429 = %v, want %v: from the hold's end, a pace apart", got, want)
	}
}
