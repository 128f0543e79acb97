// Package sandboxtest holds what the tests of the sandbox's users (the
// command tool, verify's commands, the CLI) share about needing
// bubblewrap. It lives beside sandbox, which owns ErrNoBwrap, so that
// every such test skips and fails for the same reasons.
package sandboxtest

import (
	"errors"
	"testing"

	"github.com/nightshift-dev/nightshift/sandbox"
)

// NeedBwrap takes err from sandbox.New with Mode Bwrap: it skips t where
// bubblewrap is not installed (CI installs it, so there the test runs),
// and fails t on any other error, where bubblewrap is installed but does
// not work: that is worth knowing.
func NeedBwrap(t testing.TB, err error) {
	t.Helper()
	switch {
	case errors.Is(err, sandbox.ErrNoBwrap):
		t.Skipf("needs bubblewrap (apt-get install bubblewrap): %v", err)
	case err != nil:
		t.Fatal(err)
	}
}
