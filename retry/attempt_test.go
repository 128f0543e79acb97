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
			want: []string{"status=429 attempt=1 wait=1000ms"},
		},
		{
			name: "failures without a status name their class",
			errs: []error{&llm.Error{Class: llm.Timeout}, &llm.Error{Class: llm.Connection}},
			want: []string{"error=timeout attempt=1 wait=1000ms", "error=connection attempt=2 wait=2000ms"},
		},
		{
			name: "an unclassified error says unknown",
			errs: []error{errors.New("flaky")},
			want: []string{"error=unknown attempt=1 wait=1000ms"},
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
		"retry_after_ms": int64(2000), "budgeted": true, "error": err.Error(),
	}
	if e.Type != "retry" || e.Line() != "[retry · status=429 attempt=1 wait=2000ms]" {
		t.Errorf("event line = %q", e.Line())
	}
	if diff := cmp.Diff(want, e.Data); diff != "" {
		t.Errorf("event data (-want +got):\n%s", diff)
	}
}

func TestExhaustedError(t *testing.T) {
	last := &llm.Error{Class: llm.Connection, Err: errors.New("connection reset")}
	fn, _ := script(statusErr(503, "", "unavailable"), last)
	_, err := retry.Do(context.Background(), retry.Policy{Retries: 1, Clock: clock.NewFake(epoch), Rand: constRand(0)}, fn)

	t.Run("it matches the sentinel", func(t *testing.T) {
		if !errors.Is(err, retry.ErrExhausted) {
			t.Errorf("errors.Is(%v, ErrExhausted) = false", err)
		}
	})
	t.Run("it is the typed error with the count and the last failure", func(t *testing.T) {
		var ex *retry.ExhaustedError
		if !errors.As(err, &ex) {
			t.Fatalf("errors.As(%v) = false", err)
		}
		if ex.Attempts != 2 || ex.Last != last || ex.OverBudget || ex.Waited != time.Second {
			t.Errorf("got %+v, want 2 attempts, waited 1s, the last failure, not over budget", *ex)
		}
	})
	t.Run("the class read through it is the last failure's", func(t *testing.T) {
		if c := llm.ClassOf(err); c != llm.Connection {
			t.Errorf("ClassOf = %q, want connection", c)
		}
	})
}

// blockingClock's Sleep waits for ctx to end, telling the test when it
// starts: a wait that only cancellation can end.
type blockingClock struct {
	clock.Fake
	sleeping chan struct{}
}

func (c *blockingClock) Sleep(ctx context.Context, d time.Duration) error {
	c.sleeping <- struct{}{}
	<-ctx.Done()
	return ctx.Err()
}

func TestDoStopsWhenTheContextEnds(t *testing.T) {
	t.Run("cancelling during a wait returns at once with Canceled", func(t *testing.T) {
		clk := &blockingClock{sleeping: make(chan struct{})}
		ctx, cancel := context.WithCancel(context.Background())
		fn, calls := script(repeat(statusErr(529, "overloaded_error", "overloaded"), 5)...)
		done := make(chan error)
		go func() {
			_, err := retry.Do(ctx, retry.Policy{Retries: 3, Clock: clk}, fn)
			done <- err
		}()
		<-clk.sleeping
		cancel()
		err := <-done
		if !errors.Is(err, context.Canceled) || llm.ClassOf(err) != llm.Canceled {
			t.Errorf("err = %v (class %q), want it to wrap context.Canceled", err, llm.ClassOf(err))
		}
		if errors.Is(err, retry.ErrExhausted) {
			t.Errorf("err = %v, a cancellation is not an exhaustion", err)
		}
		if *calls != 1 {
			t.Errorf("calls = %d, want 1", *calls)
		}
	})
	t.Run("a call that fails after the caller cancelled is not retried", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		_, err := retry.Do(ctx, retry.Policy{Retries: 3, Clock: clock.NewFake(epoch)}, func(context.Context) (int, error) {
			calls++
			cancel()
			return 0, &llm.Error{Class: llm.Connection}
		})
		if calls != 1 || !errors.Is(err, context.Canceled) || llm.ClassOf(err) != llm.Canceled {
			t.Errorf("got %v (class %q) after %d calls, want Canceled after 1", err, llm.ClassOf(err), calls)
		}
	})
}

func TestCallTimeout(t *testing.T) {
	t.Run("an attempt that hits the call timeout is a retryable timeout", func(t *testing.T) {
		var seen []llm.Class
		calls := 0
		p := retry.Policy{
			Retries:     2,
			CallTimeout: time.Millisecond,
			Clock:       clock.NewFake(epoch),
			OnRetry:     func(a retry.Attempt) { seen = append(seen, a.Class) },
		}
		got, err := retry.Do(context.Background(), p, func(ctx context.Context) (string, error) {
			calls++
			if calls == 1 {
				<-ctx.Done() // a call that hangs until the timeout ends it
				return "", &llm.Error{Provider: "test", Class: llm.Canceled, Err: ctx.Err()}
			}
			return "ok", nil
		})
		if err != nil || got != "ok" {
			t.Fatalf("got %q, %v; want ok", got, err)
		}
		if diff := cmp.Diff([]llm.Class{llm.Timeout}, seen); diff != "" {
			t.Errorf("retried classes (-want +got):\n%s", diff)
		}
	})
	t.Run("timeouts on every attempt exhaust the retries as a timeout", func(t *testing.T) {
		p := retry.Policy{Retries: 1, CallTimeout: time.Millisecond, Clock: clock.NewFake(epoch)}
		_, err := retry.Do(context.Background(), p, func(ctx context.Context) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		})
		var e *llm.Error
		if !errors.Is(err, retry.ErrExhausted) || !errors.As(err, &e) || e.Class != llm.Timeout {
			t.Errorf("err = %v, want an exhausted timeout", err)
		}
	})
}

func TestBudget(t *testing.T) {
	m := time.Minute
	limited := func(ra time.Duration) error {
		return &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: ra}
	}
	tests := []struct {
		name       string
		p          retry.Policy
		errs       []error
		wantCalls  int
		wantWaits  []time.Duration
		overBudget bool
		ok         bool
	}{
		{
			name:      "429s with a retry-after are waited out without spending retries",
			p:         retry.Policy{Retries: 0},
			errs:      repeat(limited(m), 4),
			wantCalls: 5, wantWaits: []time.Duration{m, m, m, m}, ok: true,
		},
		{
			name:      "the budget ends the call when the next wait would overrun it",
			p:         retry.Policy{Retries: 0},
			errs:      repeat(limited(4*m), 10),
			wantCalls: 3, wantWaits: []time.Duration{4 * m, 4 * m}, overBudget: true,
		},
		{
			name:      "a smaller budget is honoured",
			p:         retry.Policy{Retries: 5, Budget: 90 * time.Second},
			errs:      repeat(limited(m), 10),
			wantCalls: 2, wantWaits: []time.Duration{m}, overBudget: true,
		},
		{
			name:      "429s without a retry-after still spend retries",
			p:         retry.Policy{Retries: 1},
			errs:      repeat(limited(0), 10),
			wantCalls: 2, wantWaits: []time.Duration{time.Second},
		},
		{
			name:      "without a budget a retry-after 429 spends retries",
			p:         retry.Policy{Retries: 1, Budget: -1},
			errs:      repeat(limited(m), 10),
			wantCalls: 2, wantWaits: []time.Duration{m},
		},
		{
			name:      "backoff waits count against the budget too",
			p:         retry.Policy{Retries: 10, Budget: 5 * time.Second},
			errs:      repeat(statusErr(503, "", "unavailable"), 10),
			wantCalls: 3, wantWaits: []time.Duration{time.Second, 2 * time.Second}, overBudget: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := clock.NewFake(epoch)
			tt.p.Clock, tt.p.Rand = fake, constRand(0)
			fn, calls := script(tt.errs...)
			_, err := retry.Do(context.Background(), tt.p, fn)
			if *calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", *calls, tt.wantCalls)
			}
			if diff := cmp.Diff(tt.wantWaits, fake.Waits()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if tt.ok {
				if err != nil {
					t.Errorf("err = %v, want success", err)
				}
				return
			}
			var ex *retry.ExhaustedError
			if !errors.As(err, &ex) || ex.OverBudget != tt.overBudget {
				t.Errorf("err = %v, want ExhaustedError with OverBudget %v", err, tt.overBudget)
			}
		})
	}
}
