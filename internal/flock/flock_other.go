//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package flock

import (
	"errors"
	"os"
)

// ErrUnsupported is the error of Lock, TryLock and Unlock where files
// cannot be locked: a caller cannot share its state with other processes.
var ErrUnsupported = errors.New("file locks are not supported on this platform")

// Lock fails here.
func Lock(*os.File) error { return ErrUnsupported }

// TryLock fails here.
func TryLock(*os.File) error { return ErrUnsupported }

// Unlock fails here.
func Unlock(*os.File) error { return ErrUnsupported }

// Alive cannot tell here, and says yes: what a dead process held expires
// with its lease instead.
func Alive(int) bool { return true }
