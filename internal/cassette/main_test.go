package cassette_test

import (
	"testing"

	"github.com/nightshift-dev/nightshift/internal/testenv"
)

// TestMain starts the tests without the credentials of whoever runs them.
func TestMain(m *testing.M) { testenv.Main(m) }
