package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/nightshift-dev/nightshift/internal/testenv"
	"github.com/nightshift-dev/nightshift/statedir"
)

// asMainEnv, when set to 1, makes the test binary behave as the nightshift
// command itself, so Go tests can run it as a real child process (to kill
// it, signal it, or read its stderr as it happens).
const asMainEnv = "NIGHTSHIFT_TEST_AS_MAIN"

// TestMain either is nightshift (a child process started by a Go test),
// or runs the tests with `nightshift` installed on the scripts' PATH.
func TestMain(tm *testing.M) {
	var m testscript.TestingM = tm
	if os.Getenv(asMainEnv) == "1" {
		installCrashPoint()
		code := Main()
		if os.Getenv(lazyStatsEnv) == "1" {
			fmt.Fprintln(os.Stderr, lazyStats())
		}
		os.Exit(code)
	}
	// The tests' state (journals, audit logs, run records) goes to a
	// folder of their own, never to the home folder of whoever runs them.
	// (Run as a script's `nightshift`, the script's Setup has set it.)
	// Run as a script's command, the script's environment is the one it
	// set up; as the test binary, start without the runner's credentials.
	asCommand := filepath.Base(os.Args[0]) == "nightshift" || filepath.Base(os.Args[0]) == "mcp-test-server"
	if !asCommand {
		testenv.Scrub()
	}
	if !asCommand && os.Getenv(statedir.Env) == "" {
		dir, err := os.MkdirTemp("", "nightshift-state-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Setenv(statedir.Env, dir)
		m = removeAfter{m, dir}
	}
	testscript.Main(m, map[string]func(){
		"nightshift":      func() { os.Exit(Main()) },
		"mcp-test-server": mcpTestServer,
	})
}

// removeAfter removes a folder once the tests ran (testscript.Main exits
// the process, so a defer in TestMain would not run).
type removeAfter struct {
	testscript.TestingM
	dir string
}

func (r removeAfter) Run() int {
	defer os.RemoveAll(r.dir)
	return r.TestingM.Run()
}

// TestScripts runs the command-line sessions in testdata/script: each
// file is one theme, played as a user's shell script would play it.
func TestScripts(t *testing.T) {
	contract := loadEventContract(t, "../../docs/events.md")
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		// Each script keeps its state outside its $WORK, where its
		// workspaces are: STATE, for the record and audit commands.
		Setup: func(env *testscript.Env) error {
			dir, err := os.MkdirTemp("", "nightshift-script-state-")
			if err != nil {
				return err
			}
			env.Defer(func() { os.RemoveAll(dir) })
			env.Setenv(statedir.Env, dir)
			env.Setenv("STATE", dir)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":  cmdExits,
			"events": contract.cmdEvents,
			"record": contract.cmdRecord,
			"audit":  cmdAudit,
		},
	})
}
