package clock

import (
	"context"
	"sync"
	"time"
)

// Clock tells the time and waits.
type Clock interface {
	Now() time.Time
	// Sleep waits for d or until ctx ends, whichever is first, and returns
	// ctx.Err() in the second case.
	Sleep(ctx context.Context, d time.Duration) error
}

// Real is the wall clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Sleep waits on a timer, or until ctx ends.
func (Real) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Fake is a simulated clock: Sleep advances the time at once and records
// the wait. Timers set with AfterFunc fire when Sleep or Advance moves the
// time past them. It is safe for concurrent use.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	waits  []time.Duration
	timers []*fakeTimer
	seq    int
}

// NewFake returns a fake clock set to start.
func NewFake(start time.Time) *Fake { return &Fake{now: start} }

// Now returns the simulated time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Sleep records d and advances the simulated time by it, unless ctx has
// already ended. A timer that falls due on the way fires at its own time,
// and when it ends ctx (a deadline, say) the sleep stops there and
// returns ctx's error, as a real sleep cut short would.
func (f *Fake) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	f.waits = append(f.waits, d)
	f.mu.Unlock()
	return f.advance(ctx, max(d, 0))
}

// Advance moves the simulated time forward by d, firing the timers that
// fall due on the way.
func (f *Fake) Advance(d time.Duration) {
	f.advance(context.Background(), d) //nolint:errcheck // Background never ends
}

// Waits returns the waits recorded so far, in order.
func (f *Fake) Waits() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.waits...)
}
