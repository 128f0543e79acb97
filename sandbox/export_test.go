package sandbox

// For the external tests (package sandbox_test), which run whole runs
// through the lifecycle: package sandbox cannot import it.
var NeedBwrap = needBwrap

// OutsideScans is how many looks outside the workspace this process has
// made.
func OutsideScans() int64 { return outsideScans.Load() }
