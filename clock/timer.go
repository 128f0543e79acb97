package clock

import (
	"context"
	"slices"
	"time"
)

// Timers is a Clock that can call a function once some of its time has
// passed. Fake is one; AfterFunc falls back to time.AfterFunc for Real
// and to a sleeping goroutine for any other Clock.
type Timers interface {
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// AfterFunc calls f once d has passed on c, and returns a function that
// cancels the call, reporting whether it did (false: f ran or is running).
// Deadlines that must hold in simulated time (a run's --timeout, a stream
// that stalls) are set this way, so tests move them with the fake clock
// and never sleep.
func AfterFunc(c Clock, d time.Duration, f func()) (stop func() bool) {
	switch c := c.(type) {
	case Timers:
		return c.AfterFunc(d, f)
	case Real, nil:
		return time.AfterFunc(d, f).Stop
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan bool, 1)
	go func() {
		if c.Sleep(ctx, d) == nil {
			done <- true
			f()
			return
		}
		done <- false
	}()
	return func() bool {
		cancel()
		return !<-done
	}
}

// WithTimeout returns a copy of ctx that c ends after d, with cause as its
// context.Cause, or earlier when ctx ends or cancel is called. On Real it
// is context.WithTimeoutCause; on Fake the deadline moves with the
// simulated time.
func WithTimeout(ctx context.Context, c Clock, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	if _, ok := c.(Timers); !ok && (c == nil || c == Clock(Real{})) {
		return context.WithTimeoutCause(ctx, d, cause)
	}
	ctx, cancelCause := context.WithCancelCause(ctx)
	stop := AfterFunc(c, d, func() { cancelCause(cause) })
	return ctx, func() {
		stop()
		cancelCause(context.Canceled)
	}
}

// fakeTimer is a function waiting for a Fake's time to reach at.
type fakeTimer struct {
	at  time.Time
	seq int // orders timers due at the same instant by when they were set
	f   func()
}

// AfterFunc calls f when Sleep or Advance moves the simulated time to d
// from now or past it; d <= 0 calls it at the next move. f runs in the
// goroutine that moved the time, after the time has reached f's instant,
// so that what f does (a cancelled context) is seen by that Sleep.
func (f *Fake) AfterFunc(d time.Duration, fn func()) (stop func() bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	t := &fakeTimer{at: f.now.Add(d), seq: f.seq, f: fn}
	f.timers = append(f.timers, t)
	return func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		i := slices.Index(f.timers, t)
		if i < 0 {
			return false
		}
		f.timers = slices.Delete(f.timers, i, i+1)
		return true
	}
}

// advance moves the time forward by d, stopping at each timer that falls
// due on the way to fire it; it returns ctx's error as soon as a timer has
// ended ctx.
func (f *Fake) advance(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	target := f.now.Add(d)
	f.mu.Unlock()
	for {
		f.mu.Lock()
		next := -1
		for i, t := range f.timers {
			if t.at.After(target) {
				continue
			}
			if next < 0 || t.at.Before(f.timers[next].at) || t.at.Equal(f.timers[next].at) && t.seq < f.timers[next].seq {
				next = i
			}
		}
		if next < 0 {
			if target.After(f.now) {
				f.now = target
			}
			f.mu.Unlock()
			return nil
		}
		t := f.timers[next]
		f.timers = slices.Delete(f.timers, next, next+1)
		if t.at.After(f.now) {
			f.now = t.at
		}
		f.mu.Unlock()
		t.f()
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}
