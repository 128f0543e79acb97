// Package clock is the injected time source of nightshift. Everything that
// waits or schedules takes a Clock, so tests run a night in milliseconds and
// never sleep: Real is the wall clock, Fake a simulated one whose Sleep
// advances time at once and records the wait.
//
//	c := clock.NewFake(start)
//	c.Sleep(ctx, time.Minute) // returns at once
//	c.Now()                   // start + 1m
//
// Deadlines that must hold in simulated time are set with AfterFunc and
// WithTimeout: on a Fake they fire as Sleep or Advance moves the time past
// them, so a test of a four-hour hang takes no time at all.
package clock
