// Package crashpoint names the instants at which a process may die (kill
// -9, a power cut) and must still leave everything recoverable: between
// each durable write of the journal, each step of a rollback, each write
// of the workspace.
//
// In production Hit does nothing but load a nil pointer. A test that
// kills a real process at the k-th point installs a hook with Set (in a
// child process, from TestMain), so that the kill lands exactly there:
// deterministic, with no sleeps and no timing.
//
//	crashpoint.Set(func(name string) {
//		if n++; n == k {
//			syscall.Kill(os.Getpid(), syscall.SIGKILL)
//		}
//	})
package crashpoint

import "sync/atomic"

var hook atomic.Pointer[func(name string)]

// Hit marks one point; name says where, for the test's log.
func Hit(name string) {
	if h := hook.Load(); h != nil {
		(*h)(name)
	}
}

// Set installs fn, called at every point; nil removes it.
func Set(fn func(name string)) {
	if fn == nil {
		hook.Store(nil)
		return
	}
	hook.Store(&fn)
}
