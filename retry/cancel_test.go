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
