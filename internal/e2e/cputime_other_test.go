//go:build !unix

package e2e

import "time"

// cpuTime is unknown here; the CPU metrics then read zero.
func cpuTime() time.Duration { return 0 }
