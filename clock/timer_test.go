package clock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/clock"
)

func TestFakeTimers(t *testing.T) {
	start := time.Date(2026, 11, 29, 22, 0, 0, 0, time.UTC)
	t.Run("timers fire in order of their time as Advance passes them", func(t *testing.T) {
		c := clock.NewFake(start)
		var fired []string
		clock.AfterFunc(c, 2*time.Minute, func() { fired = append(fired, "2m at "+c.Now().Sub(start).String()) })
		clock.AfterFunc(c, time.Minute, func() { fired = append(fired, "1m at "+c.Now().Sub(start).String()) })
		stop := clock.AfterFunc(c, 90*time.Second, func() { fired = append(fired, "stopped") })
		if !stop() {
			t.Error("stop of a pending timer reported false")
		}
		c.Advance(time.Hour)
		if diff := cmp.Diff([]string{"1m at 1m0s", "2m at 2m0s"}, fired); diff != "" {
			t.Error(diff)
		}
		if !c.Now().Equal(start.Add(time.Hour)) {
			t.Errorf("now = %v, want the whole advance", c.Now())
		}
	})
	t.Run("a sleep past a deadline stops at the deadline with the context's error", func(t *testing.T) {
		c := clock.NewFake(start)
		cause := errors.New("the run's time is up")
		ctx, cancel := clock.WithTimeout(context.Background(), c, time.Hour, cause)
		defer cancel()
		err := c.Sleep(ctx, 4*time.Hour)
		if !errors.Is(err, context.Canceled) || context.Cause(ctx) != cause {
			t.Fatalf("Sleep = %v (cause %v), want the deadline's cancel", err, context.Cause(ctx))
		}
		if got := c.Now().Sub(start); got != time.Hour {
			t.Errorf("the sleep ended %s in, want at the deadline, 1h", got)
		}
	})
	t.Run("a timer stopped before it is due never fires", func(t *testing.T) {
		c := clock.NewFake(start)
		ctx, cancel := clock.WithTimeout(context.Background(), c, time.Minute, errors.New("late"))
		cancel()
		c.Advance(time.Hour)
		if context.Cause(ctx) != context.Canceled {
			t.Errorf("cause %v, want the cancel's", context.Cause(ctx))
		}
	})
}

func TestRealAfterFuncCanBeStopped(t *testing.T) {
	stop := clock.AfterFunc(clock.Real{}, time.Hour, func() { t.Error("fired") })
	if !stop() {
		t.Error("stop reported false")
	}
}
