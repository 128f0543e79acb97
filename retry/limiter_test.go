package retry_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
)

// frozenClock records every wait without letting time pass, so the waits
// handed to concurrent callers do not depend on how they interleave. The
// test moves time with Advance.
type frozenClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func (c *frozenClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *frozenClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.mu.Unlock()
	return ctx.Err()
}

func (c *frozenClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// waitsOf makes n calls to l.Wait one after another and returns how long
// each one waited.
func waitsOf(t *testing.T, l *retry.Limiter, c *frozenClock, n, est int) []time.Duration {
	t.Helper()
	out := make([]time.Duration, n)
	for i := range out {
		c.mu.Lock()
		before := len(c.waits)
		c.mu.Unlock()
		if err := l.Wait(context.Background(), est); err != nil {
			t.Fatal(err)
		}
		c.mu.Lock()
		if len(c.waits) > before {
			out[i] = c.waits[len(c.waits)-1]
		}
		c.mu.Unlock()
	}
	return out
}

// callsOf makes n calls one after another, each reporting a success
// before the next starts, and returns how long each waited for its turn.
func callsOf(t *testing.T, l *retry.Limiter, c *frozenClock, n, est int) []time.Duration {
	t.Helper()
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = waitsOf(t, l, c, 1, est)[0]
		l.Observe(nil, nil)
	}
	return out
}

// slower is a header pace as the limiter spaces it: 3% slower than the
// headers say, so that calls do not land on the limit's very edge.
func slower(left time.Duration, units float64) time.Duration {
	return time.Duration(float64(time.Duration(float64(left)*1.03)) / units)
}

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func TestLimiterLearnsFromHeaders(t *testing.T) {
	s := time.Second
	reset := epoch.Add(30 * s).Format(time.RFC3339)
	tests := []struct {
		name string
		h    http.Header
		est  int
		// want are the waits of three calls after the response: the
		// first is one spacing after the call the response answered.
		want []time.Duration
	}{
		{
			name: "Anthropic's remaining requests are spread until the reset",
			h:    header("anthropic-ratelimit-requests-remaining", "10", "anthropic-ratelimit-requests-reset", reset),
			want: []time.Duration{slower(30*s, 10), slower(30*s, 10) * 2, slower(30*s, 10) * 3},
		},
		{
			name: "OpenAI's remaining requests are spread until a reset like 6m0s",
			h:    header("x-ratelimit-remaining-requests", "4", "x-ratelimit-reset-requests", "6m0s"),
			want: []time.Duration{slower(6*time.Minute, 4), slower(6*time.Minute, 4) * 2, slower(6*time.Minute, 4) * 3},
		},
		{
			name: "OpenAI's millisecond resets are read",
			h:    header("x-ratelimit-remaining-requests", "2", "x-ratelimit-reset-requests", "20ms"),
			want: []time.Duration{slower(20*time.Millisecond, 2), slower(20*time.Millisecond, 2) * 2, slower(20*time.Millisecond, 2) * 3},
		},
		{
			name: "with the limit known, the whole limit is spread until the reset, since it refills meanwhile",
			h: header("anthropic-ratelimit-requests-limit", "60", "anthropic-ratelimit-requests-remaining", "10",
				"anthropic-ratelimit-requests-reset", epoch.Add(60*s).Format(time.RFC3339)),
			want: []time.Duration{slower(60*s, 60), slower(60*s, 60) * 2, slower(60*s, 60) * 3},
		},
		{
			name: "remaining tokens pace calls by their estimated size",
			h:    header("x-ratelimit-remaining-tokens", "1000", "x-ratelimit-reset-tokens", "1s"),
			est:  500,
			want: []time.Duration{slower(s, 1000) * 500, slower(s, 1000) * 500 * 2, slower(s, 1000) * 500 * 3},
		},
		{
			name: "the strictest of Anthropic's token windows wins",
			h: header(
				"anthropic-ratelimit-input-tokens-remaining", "100000", "anthropic-ratelimit-input-tokens-reset", reset,
				"anthropic-ratelimit-output-tokens-remaining", "3000", "anthropic-ratelimit-output-tokens-reset", reset),
			est:  100,
			want: []time.Duration{slower(30*s, 3000) * 100, slower(30*s, 3000) * 100 * 2, slower(30*s, 3000) * 100 * 3},
		},
		{
			name: "no requests left blocks for one request's share of the window",
			h: header("anthropic-ratelimit-requests-limit", "60", "anthropic-ratelimit-requests-remaining", "0",
				"anthropic-ratelimit-requests-reset", epoch.Add(60*s).Format(time.RFC3339)),
			want: []time.Duration{slower(60*s, 60), slower(60*s, 60) * 2, slower(60*s, 60) * 3},
		},
		{
			name: "no requests left and no limit blocks until the reset",
			h:    header("x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "7s"),
			want: []time.Duration{7 * s, 7 * s, 7 * s},
		},
		{
			name: "unreadable headers change nothing",
			h:    header("x-ratelimit-remaining-requests", "many", "x-ratelimit-reset-requests", "soon"),
			want: []time.Duration{0, 0, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &frozenClock{now: epoch}
			l := retry.NewLimiter(retry.LimiterConfig{Clock: c})
			l.Wait(context.Background(), tt.est) // the call whose response had h
			c.waits = nil
			l.Observe(tt.h, nil)
			if diff := cmp.Diff(tt.want, callsOf(t, l, c, 3, tt.est)); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("a failed call's headers are read from its error", func(t *testing.T) {
		c := &frozenClock{now: epoch}
		l := retry.NewLimiter(retry.LimiterConfig{Clock: c})
		l.Observe(nil, &llm.Error{Class: llm.Transient, Status: 500,
			Header: header("x-ratelimit-remaining-requests", "5", "x-ratelimit-reset-requests", "10s")})
		if got, want := l.State().Interval, slower(10*s, 5); got != want {
			t.Errorf("interval = %s, want %s", got, want)
		}
	})
	t.Run("the header pace ends at the reset", func(t *testing.T) {
		c := &frozenClock{now: epoch}
		l := retry.NewLimiter(retry.LimiterConfig{Clock: c})
		l.Observe(header("x-ratelimit-remaining-requests", "5", "x-ratelimit-reset-requests", "10s"), nil)
		c.Advance(10 * s)
		if got := l.State().Interval; got != 0 {
			t.Errorf("interval after the reset = %s, want none", got)
		}
	})
}

func TestLimiterLearnsFromBare429s(t *testing.T) {
	s := time.Second
	c := &frozenClock{now: epoch}
	l := retry.NewLimiter(retry.LimiterConfig{Clock: c})
	const accepted = 12
	for range accepted {
		l.Wait(context.Background(), 0)
		l.Observe(nil, nil)
		c.Advance(s)
	}
	limited := &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: 5 * s}

	l.Observe(nil, limited)
	st := l.State()
	// What the server accepted: 12 calls from the first success until it
	// takes calls again, 12s later plus the 5s Retry-After.
	wantRPM := accepted * float64(time.Minute) / float64(12*s+5*s)
	if st.LearnedRPM != wantRPM || !st.BlockedUntil.Equal(c.Now().Add(5*s)) {
		t.Fatalf("after a 429: %+v, want %v rpm learned and blocked for 5s", st, wantRPM)
	}
	t.Run("every caller waits out the retry-after, then one pace apart", func(t *testing.T) {
		every := time.Duration(float64(time.Minute) / wantRPM)
		want := []time.Duration{5 * s, 5*s + every, 5*s + 2*every}
		if diff := cmp.Diff(want, waitsOf(t, l, c, 3, 0)); diff != "" {
			t.Errorf("waits (-want +got):\n%s", diff)
		}
	})
	t.Run("the other 429s of the same episode slow it down once", func(t *testing.T) {
		l.Observe(nil, limited)
		l.Observe(nil, limited)
		if got := l.State().LearnedRPM; got != wantRPM {
			t.Errorf("learned rpm = %v, want still %v", got, wantRPM)
		}
	})
	t.Run("a window's worth of successes after the calm probes an eighth higher", func(t *testing.T) {
		// The hold of 5s, then a window (the Retry-After, 5s) of calls
		// at the pace: 3.5 of them, and two more.
		c.Advance(5 * s)
		for range 5 {
			c.Advance(1500 * time.Millisecond)
			l.Observe(nil, nil)
		}
		if got, want := l.State().LearnedRPM, wantRPM*9/8; got != want {
			t.Errorf("learned rpm = %v, want %v", got, want)
		}
	})
	t.Run("a retry-after header on the error is read when the field is empty", func(t *testing.T) {
		c := &frozenClock{now: epoch}
		l := retry.NewLimiter(retry.LimiterConfig{Clock: c})
		l.Observe(nil, &llm.Error{Class: llm.RateLimited, Status: 429, Header: header("Retry-After", "3")})
		if got := l.State().BlockedUntil; !got.Equal(epoch.Add(3 * s)) {
			t.Errorf("blocked until %s, want 3s from now", got)
		}
	})
	t.Run("quota refusals and bad requests do not change the pace", func(t *testing.T) {
		c := &frozenClock{now: epoch}
		l := retry.NewLimiter(retry.LimiterConfig{Clock: c})
		l.Observe(nil, &llm.Error{Class: llm.Quota, Status: 429, RetryAfter: s})
		l.Observe(nil, &llm.Error{Class: llm.BadRequest, Status: 400})
		if diff := cmp.Diff(retry.LimiterState{}, l.State()); diff != "" {
			t.Errorf("state (-want +got):\n%s", diff)
		}
	})
}

func TestLimiterManualRate(t *testing.T) {
	tests := []struct {
		name string
		cfg  retry.LimiterConfig
		est  int
		want []time.Duration
	}{
		{"--rpm 120 spaces calls 500ms apart", retry.LimiterConfig{RPM: 120}, 0,
			[]time.Duration{0, 500 * time.Millisecond, time.Second}},
		{"--tpm 6000 spaces 100-token calls a second apart", retry.LimiterConfig{TPM: 6000}, 100,
			[]time.Duration{0, time.Second, 2 * time.Second}},
		{"the stricter of --rpm and --tpm wins", retry.LimiterConfig{RPM: 6000, TPM: 6000}, 200,
			[]time.Duration{0, 2 * time.Second, 4 * time.Second}},
		{"no rate lets calls one after another through at once", retry.LimiterConfig{}, 1000,
			[]time.Duration{0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &frozenClock{now: epoch}
			tt.cfg.Clock = c
			l := retry.NewLimiter(tt.cfg)
			if diff := cmp.Diff(tt.want, callsOf(t, l, c, 3, tt.est)); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("SetRate changes the rate by hand later", func(t *testing.T) {
		c := &frozenClock{now: epoch}
		l := retry.NewLimiter(retry.LimiterConfig{Clock: c})
		l.SetRate(30, 0)
		if got := l.State().Interval; got != 2*time.Second {
			t.Errorf("interval = %s, want 2s", got)
		}
	})
}

func TestLimiterSpacesConcurrentCallers(t *testing.T) {
	const n = 8
	c := &frozenClock{now: epoch}
	l := retry.NewLimiter(retry.LimiterConfig{RPM: 60, Clock: c})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if err := l.Wait(context.Background(), 0); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got := slices.Clone(c.waits)
	slices.Sort(got)
	want := make([]time.Duration, n)
	for i := range want {
		want[i] = time.Duration(i) * time.Second
	}
	// The first caller is let through at once and records no wait.
	if diff := cmp.Diff(want[1:], got); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestLimiterWaitStopsWithTheContext(t *testing.T) {
	clk := &blockingClock{sleeping: make(chan struct{})}
	l := retry.NewLimiter(retry.LimiterConfig{RPM: 1, Clock: clk})
	l.Wait(context.Background(), 0) // takes the free turn
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- l.Wait(ctx, 0) }()
	<-clk.sleeping
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestLimiters(t *testing.T) {
	r := retry.NewLimiters(retry.LimiterConfig{RPM: 10})
	a := r.For("anthropic", "sk-ant-secret-1")
	t.Run("one credential gets one limiter", func(t *testing.T) {
		if r.For("anthropic", "sk-ant-secret-1") != a {
			t.Error("a second For returned another limiter")
		}
	})
	t.Run("another credential or endpoint gets its own", func(t *testing.T) {
		if r.For("anthropic", "sk-ant-secret-2") == a || r.For("openai", "sk-ant-secret-1") == a {
			t.Error("two credentials share a limiter")
		}
	})
	t.Run("limiters start from the registry's hand-set rate", func(t *testing.T) {
		if got := a.State().Interval; got != 6*time.Second {
			t.Errorf("interval = %s, want 6s", got)
		}
	})
	t.Run("the key never holds the credential", func(t *testing.T) {
		k := retry.LimiterKey("anthropic", "sk-ant-secret-1")
		if strings.Contains(k, "secret") || !strings.HasPrefix(k, "anthropic/") {
			t.Errorf("key = %q", k)
		}
	})
	t.Run("the shared registry is one", func(t *testing.T) {
		if a, b := retry.Shared(), retry.Shared(); a != b {
			t.Error("Shared returned two registries")
		}
	})
}

func TestEstimateTokens(t *testing.T) {
	req := &llm.Request{
		System:    strings.Repeat("s", 40),
		Messages:  []llm.Message{llm.UserText(strings.Repeat("u", 40))},
		MaxTokens: 1000,
	}
	if got, want := retry.EstimateTokens(req), 80/4+1000; got != want {
		t.Errorf("EstimateTokens = %d, want %d", got, want)
	}
}

// windowServer is a fixed-window rate limit that answers only 429 with a
// Retry-After until the window ends, and sends no rate-limit headers.
type windowServer struct {
	clk   clock.Clock
	limit int
	start time.Time
	used  int
	n429  int
}

func (s *windowServer) Generate(context.Context, *llm.Request) (*llm.Response, error) {
	now := s.clk.Now()
	if now.Sub(s.start) >= time.Minute {
		s.start, s.used = s.start.Add(now.Sub(s.start).Truncate(time.Minute)), 0
	}
	if s.used >= s.limit {
		s.n429++
		ra := s.start.Add(time.Minute).Sub(now)
		return nil, &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: ra,
			Header: header("Retry-After", strconv.Itoa(int(ra.Seconds())))}
	}
	s.used++
	return &llm.Response{}, nil
}

func TestWrapWithLimiter(t *testing.T) {
	run := func(withLimiter bool) (calls429 int, err error) {
		fake := clock.NewFake(epoch)
		srv := &windowServer{clk: fake, limit: 10, start: epoch}
		p := retry.Policy{Retries: retry.NoRetries, Clock: fake, Rand: constRand(0)}
		if withLimiter {
			p.Limiter = retry.NewLimiter(retry.LimiterConfig{Clock: fake})
		}
		m := retry.Wrap(srv, p)
		for range 60 {
			if _, err := m.Generate(context.Background(), &llm.Request{}); err != nil {
				return srv.n429, err
			}
		}
		return srv.n429, nil
	}
	t.Run("a server with only 429s and retry-after is learned and collides less", func(t *testing.T) {
		without, err := run(false)
		if err != nil {
			t.Fatal(err)
		}
		with, err := run(true)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("429s over 60 calls: %d without the limiter, %d with it", without, with)
		if with >= without {
			t.Errorf("429s with the limiter = %d, without = %d; want fewer with it", with, without)
		}
	})
	t.Run("the retry budget ends a call that the server keeps refusing", func(t *testing.T) {
		fake := clock.NewFake(epoch)
		refusing := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
			return nil, &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: 2 * time.Second}
		})
		lim := retry.NewLimiter(retry.LimiterConfig{Clock: fake})
		m := retry.Wrap(refusing, retry.Policy{Clock: fake, Rand: constRand(0), Budget: 5 * time.Second, Limiter: lim})
		_, err := m.Generate(context.Background(), &llm.Request{})
		var ex *retry.ExhaustedError
		if !errors.As(err, &ex) || !ex.OverBudget || ex.Attempts != 3 || ex.Waited != 4*time.Second {
			t.Errorf("err = %v, want over budget after 3 calls and 4s of waiting", err)
		}
	})
}

// Regression: a 429 on a run's first call made the limiter learn one
// request a minute, so the demo's opening 429 slowed every later call of
// the run to a minute apart.
func TestLimiterDoesNotLearnARateFromA429WithoutEvidence(t *testing.T) {
	c := &frozenClock{now: epoch}
	l := retry.NewLimiter(retry.LimiterConfig{Clock: c})
	l.Observe(nil, &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: time.Second})
	st := l.State()
	if st.LearnedRPM != 0 {
		t.Errorf("learned rpm = %v after one 429 and no success, want none learned", st.LearnedRPM)
	}
	if !st.BlockedUntil.Equal(epoch.Add(time.Second)) {
		t.Errorf("blocked until %v, want the Retry-After honoured", st.BlockedUntil)
	}
}

// hookClock is a fake clock that runs a hook inside the first Sleep, as
// if something happened while the caller waited.
type hookClock struct {
	*clock.Fake
	hook func()
}

func (c *hookClock) Sleep(ctx context.Context, d time.Duration) error {
	if h := c.hook; h != nil {
		c.hook = nil
		h()
	}
	return c.Fake.Sleep(ctx, d)
}

// Regression: callers already waiting for their turn when a 429 came back
// called into the refusal one after another, each earning its own 429
// (a quarter of all calls in a batch of fifty under a tight limit).
func TestLimiterRebooksWaitingTurnsAfterA429(t *testing.T) {
	c := &hookClock{Fake: clock.NewFake(epoch)}
	l := retry.NewLimiter(retry.LimiterConfig{RPM: 60, Clock: c})
	ctx := context.Background()
	l.Wait(ctx, 0) // the first turn, at once
	c.hook = func() {
		l.Observe(nil, &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: 10 * time.Second})
	}
	if err := l.Wait(ctx, 0); err != nil { // booked for 1s; the 429 comes while it waits
		t.Fatal(err)
	}
	if got, want := c.Now(), epoch.Add(10*time.Second); !got.Equal(want) {
		t.Errorf("the waiting call started at %s, want at the end of the Retry-After, %s", got, want)
	}
	if diff := cmp.Diff([]time.Duration{time.Second, 9 * time.Second}, c.Waits()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

// Regression: answers still on the way when the first 429 came back were
// left out of the rate it taught, so a batch that met the limit with
// fifty calls in flight learned two thirds of it.
func TestLimiterCountsLateAnswersInTheFirstLesson(t *testing.T) {
	s := time.Second
	c := &frozenClock{now: epoch}
	l := retry.NewLimiter(retry.LimiterConfig{Clock: c})
	for range 3 {
		l.Observe(nil, nil)
		c.Advance(s)
	}
	// At 3s: refused until 13s. The first success was at 0s.
	span := 3*s + 10*s
	l.Observe(nil, &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: 10 * s})
	rpm := func(n int) float64 { return float64(n) * float64(time.Minute) / float64(span) }
	if got := l.State().LearnedRPM; got != rpm(3) {
		t.Fatalf("learned %v rpm, want %v", got, rpm(3))
	}
	l.Observe(nil, nil) // two answers to calls made before the refusal
	l.Observe(nil, nil)
	if got := l.State().LearnedRPM; got != rpm(5) {
		t.Errorf("learned %v rpm after two late answers, want %v", got, rpm(5))
	}
	c.Advance(11 * s) // the hold is over: new successes are new evidence
	l.Observe(nil, nil)
	if got := l.State().LearnedRPM; got > rpm(5)+1 {
		t.Errorf("learned %v rpm after the hold, want only the slow speed-up from %v", got, rpm(5))
	}
}

// Regression (issue 13): the headers of a 429, read half a window after
// the window's last accepted call, spread the limit over the half window
// left, so the turns booked next were a quarter of a second apart under a
// limit of two a second (twenty processes: 20 of 100 calls answered 429).
// A window read late gives a shorter spacing, never a longer one, so the
// longer spacing of the same limit is kept while it holds.
func TestLimiterKeepsTheLongerSpacingOfALimit(t *testing.T) {
	s := time.Second
	c := &frozenClock{now: epoch}
	l := retry.NewLimiter(retry.LimiterConfig{Clock: c})
	window := func(limit, remaining string, reset time.Time) http.Header {
		return header("anthropic-ratelimit-requests-limit", limit, "anthropic-ratelimit-requests-remaining", remaining,
			"anthropic-ratelimit-requests-reset", reset.Format(time.RFC3339Nano))
	}
	reset := epoch.Add(s)
	l.Observe(window("2", "1", reset), nil)
	if got, want := l.State().Interval, slower(s, 2); got != want {
		t.Fatalf("interval = %s, want %s", got, want)
	}
	c.Advance(s / 2)
	l.Observe(nil, &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: s / 2, Header: window("2", "0", reset)})
	if got, want := l.State().Interval, slower(s, 2); got != want {
		t.Errorf("interval after the late 429 = %s, want still %s", got, want)
	}
	l.Observe(window("10", "9", epoch.Add(s)), nil)
	if got, want := l.State().Interval, slower(s/2, 10); got != want {
		t.Errorf("interval after the limit changed = %s, want the new limit's %s", got, want)
	}
}
