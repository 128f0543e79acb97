package clock_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/clock"
)

func TestFake(t *testing.T) {
	start := time.Date(2026, 11, 29, 22, 0, 0, 0, time.UTC)
	c := clock.NewFake(start)
	t.Run("Sleep advances the time at once and records the wait", func(t *testing.T) {
		c.Sleep(context.Background(), time.Minute)
		c.Advance(time.Second)
		if got := c.Now(); !got.Equal(start.Add(61 * time.Second)) {
			t.Errorf("now = %v", got)
		}
		if diff := cmp.Diff([]time.Duration{time.Minute}, c.Waits()); diff != "" {
			t.Error(diff)
		}
	})
	t.Run("Sleep on an ended context returns its error without waiting", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		before := c.Now()
		if err := c.Sleep(ctx, time.Hour); err != context.Canceled || !c.Now().Equal(before) {
			t.Errorf("err = %v, moved %v", err, c.Now().Sub(before))
		}
	})
}

func TestRealSleepStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (clock.Real{}).Sleep(ctx, time.Hour); err != context.Canceled {
		t.Errorf("err = %v", err)
	}
}
