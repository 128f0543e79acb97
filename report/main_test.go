package report_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/nightshift-dev/nightshift/statedir"
)

// TestMain keeps the tests' state in a folder of their own, and removes
// the month's ledger once every test has read it.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "report-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(statedir.Env, dir)
	code := m.Run()
	if theMonth != nil {
		theMonth.l.Close(context.Background()) //nolint:errcheck // the tests are over
	}
	if monthDir != "" {
		os.RemoveAll(monthDir)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}
