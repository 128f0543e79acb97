package night_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/nightshift-dev/nightshift/statedir"
)

// TestMain keeps the tests' state (the journals of the builder's runs)
// in a folder of their own, never in the home folder of whoever runs
// them.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "night-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(statedir.Env, dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
