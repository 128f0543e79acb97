package lifecycle_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/statedir"
	"github.com/nightshift-dev/nightshift/verify"
)

// A cmd: check runs in the run's own sandbox, as run_command does, with
// all of it: the allow-listed environment, every namespace (its own PID
// namespace, whose init is bwrap's, and a network with only loopback), no
// capabilities, the credential folders and nightshift's state hidden.
func TestCmdChecksRunInTheRunsSandbox(t *testing.T) {
	if _, err := sandbox.New(sandbox.Config{Mode: sandbox.Bwrap, Dir: t.TempDir()}); errors.Is(err, sandbox.ErrNoBwrap) {
		t.Skipf("needs bubblewrap (apt-get install bubblewrap): %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	// Outside /tmp, which is private in the sandbox anyway.
	outside, err := os.MkdirTemp("/var/tmp", "nightshift-test-")
	if err != nil {
		t.Skipf("needs a folder outside /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	home, state := filepath.Join(outside, "home"), filepath.Join(outside, "state")
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("private\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv(statedir.Env, state)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-api03-cmd-check-0123456789")

	f := setup(t, "turns:\n  - text: done\n")
	f.cfg.Spec.Sandbox = "bwrap"
	checks := []string{
		"! env | grep -q sk-ant",
		"! tr '\\0' '\\n' < /proc/1/environ | grep -q sk-ant",
		`test "$(cat /proc/1/comm)" = bwrap`,
		fmt.Sprintf("! test -e /proc/%d/environ", os.Getpid()),
		`test "$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ')" = lo`,
		`grep -q 'CapEff:[[:space:]]*0000000000000000' /proc/self/status`,
		`test -z "$(ls -A ~/.ssh)"`,
		`test -z "$(ls -A ` + state + `)"`,
	}
	var rules []verify.Rule
	for _, c := range checks {
		rules = append(rules, verify.Cmd(c, 0))
	}
	f.cfg.Verifier = &verify.Verifier{Rules: rules}
	f.cfg.Spec.MaxVerifyRounds = 1
	res := f.run(t)
	if res.Outcome != agent.Done {
		t.Errorf("outcome %s: %s", res.Outcome, res.Reason)
	}
	if entries, _ := os.ReadDir(state); len(entries) == 0 {
		t.Error("the run kept nothing in its state folder, so hiding it proved nothing")
	}
}
