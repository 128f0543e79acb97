//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package breaker

import (
	"errors"
	"os"
)

// errNoFileLock is the error of lockFile where files cannot be locked.
var errNoFileLock = errors.New("file locks are not supported on this platform")

// lockFile fails here: without a file lock, Share cannot share.
func lockFile(*os.File) error { return errNoFileLock }

func unlockFile(*os.File) error { return errNoFileLock }

// processAlive cannot tell here; a dead process's probe expires with its
// lease instead.
func processAlive(int) bool { return true }
