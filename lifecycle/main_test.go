package lifecycle_test

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/nightshift-dev/nightshift/internal/crashpoint"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/statedir/statedirtest"
)

// TestMain keeps the tests' state (journals, audit logs, records) in a
// folder of their own, never in the home folder of whoever runs them.
// Started as a child (childEnv set), the test binary is a run that dies
// at a crash point instead (see startChild); with mcpEnvServer set, it is
// an MCP server on stdio that shows its environment (serveEnv).
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		runChild()
		return
	}
	if os.Getenv(mcpEnvServer) != "" {
		serveEnv()
		return
	}
	os.Exit(statedirtest.Run(m, "lifecycle"))
}

// The environment of a child run.
const (
	childEnv      = "LIFECYCLE_TEST_CHILD"       // the workspace
	childScenario = "LIFECYCLE_TEST_SCENARIO"    // the scenario file
	childCrash    = "LIFECYCLE_TEST_CRASH_NAMED" // the crash point it dies at, the first time
	childRun      = "LIFECYCLE_TEST_RUN"         // the run's ID
)

// runChild runs the scripted scenario in the workspace and kills itself
// with SIGKILL at the first crash point of the given name: a process that
// dies exactly there, with no timing involved.
func runChild() {
	crash := os.Getenv(childCrash)
	crashpoint.Set(func(name string) {
		if name == crash {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	})
	sc, err := scripted.Load(os.Getenv(childScenario))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	_, err = lifecycle.Run(context.Background(), lifecycle.Config{
		Dir: os.Getenv(childEnv), Model: scripted.New(sc, scripted.Config{}), RunID: os.Getenv(childRun),
	}, "work on notes.md")
	fmt.Fprintln(os.Stderr, "the child was not killed:", err)
	os.Exit(3)
}
