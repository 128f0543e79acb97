package night_test

import (
	"os"
	"testing"

	"github.com/nightshift-dev/nightshift/statedir/statedirtest"
)

// TestMain keeps the tests' state (the journals of the builder's runs)
// in a folder of their own, never in the home folder of whoever runs
// them.
func TestMain(m *testing.M) { os.Exit(statedirtest.Run(m, "night")) }
