package report_test

import (
	"context"
	"os"
	"testing"

	"github.com/nightshift-dev/nightshift/statedir/statedirtest"
)

// TestMain keeps the tests' state in a folder of their own, and removes
// the month's ledger once every test has read it.
func TestMain(m *testing.M) {
	os.Exit(statedirtest.Run(m, "report", func() {
		if theMonth != nil {
			theMonth.l.Close(context.Background()) //nolint:errcheck // the tests are over
		}
		if monthDir != "" {
			os.RemoveAll(monthDir)
		}
	}))
}
