// Package flock holds the file lock and the process check that the
// state files shared by separate nightshift processes rely on: the rate
// limiter's (package retry) and the circuit breaker's (package breaker).
// A lock is an flock(2), which the system releases when its process
// dies, so a crash never leaves a shared file locked; where the platform
// has none, Lock fails with ErrUnsupported and the caller keeps its state
// to its own process. Shared is such a file: opened once, read, changed
// and written back under its lock.
package flock
