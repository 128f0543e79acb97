package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// asMainEnv, when set to 1, makes the test binary behave as the nightshift
// command itself, so Go tests can run it as a real child process (to kill
// it, signal it, or read its stderr as it happens).
const asMainEnv = "NIGHTSHIFT_TEST_AS_MAIN"

// TestMain either is nightshift (a child process started by a Go test),
// or runs the tests with `nightshift` installed on the scripts' PATH.
func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		os.Exit(Main())
	}
	testscript.Main(m, map[string]func(){
		"nightshift": func() { os.Exit(Main()) },
	})
}

// TestScripts runs the command-line sessions in testdata/script: each
// file is one theme, played as a user's shell script would play it.
func TestScripts(t *testing.T) {
	contract := loadEventContract(t, "../../docs/events.md")
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":  cmdExits,
			"events": contract.cmdEvents,
			"record": contract.cmdRecord,
			"audit":  cmdAudit,
		},
	})
}
