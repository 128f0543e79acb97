// Package statedirtest keeps a test binary's nightshift state
// (journals, audit logs, run records) in a folder of its own, never in
// the home folder of whoever runs the tests. It lives beside statedir,
// which owns the variable that places the state ($NIGHTSHIFT_STATE_DIR,
// statedir.Env), so that every package's TestMain takes the same steps:
//
//	func TestMain(m *testing.M) { os.Exit(statedirtest.Run(m, "batch")) }
package statedirtest

import (
	"fmt"
	"os"
	"testing"

	"github.com/nightshift-dev/nightshift/internal/testenv"
	"github.com/nightshift-dev/nightshift/statedir"
)

// Run points statedir.Env at a new temporary folder named after name,
// runs m's tests, calls each of after (cleanups that need the state
// still there), removes the folder and returns m.Run's code, for
// os.Exit. A folder that cannot be made ends the process with code 1.
func Run(m *testing.M, name string, after ...func()) int {
	testenv.Scrub()
	dir, err := os.MkdirTemp("", name+"-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(statedir.Env, dir)
	code := m.Run()
	for _, f := range after {
		f()
	}
	os.RemoveAll(dir)
	return code
}
