//go:build unix

package e2e

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system, all
// threads (the garbage collector's included). On a machine shared with
// other work it measures the code's own cost far more steadily than the
// wall clock does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
