package batch_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/nightshift-dev/nightshift/statedir"
)

// TestMain keeps the tests' state (journals, audit logs, records) in a
// folder of their own, never in the home folder of whoever runs them.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "batch-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(statedir.Env, dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
