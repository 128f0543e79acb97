package breaker_test

import (
	"os"
	"testing"

	"github.com/nightshift-dev/nightshift/internal/testenv"
)

// TestMain starts the tests without the credentials of whoever runs them;
// started as a child by the cross-process test, it plays one process.
func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(child(dir))
	}
	testenv.Main(m)
}
