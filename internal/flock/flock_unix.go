//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package flock

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Lock takes an exclusive lock on f, waiting for it (a signal's EINTR
// does not end the wait).
func Lock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// TryLock takes an exclusive lock on f if no one holds it, and fails at
// once if someone does.
func TryLock(f *os.File) error {
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
}

// Unlock releases the lock on f.
func Unlock(f *os.File) error {
	return unix.Flock(int(f.Fd()), unix.LOCK_UN)
}

// Alive reports whether a process with this id exists (EPERM: it does,
// under another user).
func Alive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}
