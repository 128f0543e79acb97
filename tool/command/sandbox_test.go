package command

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/sandbox/sandboxtest"
	"github.com/nightshift-dev/nightshift/tool"
)

const key = "sk-ant-api03-must-never-reach-the-model"

// Regression (issue 11): `tr '\0' '\n' < /proc/$PPID/environ | grep
// ANTHROPIC_API_KEY` put the key into the tool's output. Under bwrap the
// command sees neither our environment nor our process.
func TestTheKeyDoesNotLeakThroughProc(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", key)
	dir := t.TempDir()
	sb, err := sandbox.New(sandbox.Config{Mode: sandbox.Bwrap, Dir: dir})
	sandboxtest.NeedBwrap(t, err)
	c := New(Config{Dir: dir, Sandbox: sb})
	for _, line := range []string{
		`tr '\0' '\n' < /proc/$PPID/environ | grep ANTHROPIC_API_KEY`,
		`cat /proc/[0-9]*/environ 2>/dev/null | tr '\0' '\n' | grep ANTHROPIC_API_KEY`,
		`env`,
	} {
		if res := run(t, c, line); strings.Contains(res.Content, key) {
			t.Errorf("%s: the output shows the key:\n%s", line, res.Content)
		}
	}
}

func TestTheDefaultTimeoutIsTwoMinutesAsDocumented(t *testing.T) {
	c := New(Config{Dir: t.TempDir()})
	if c.Timeout() != 2*time.Minute {
		t.Errorf("Timeout() = %s", c.Timeout())
	}
	if d := c.Spec().Description; !strings.Contains(d, "killed after 2m0s") {
		t.Errorf("description %q does not say 2 minutes", d)
	}
}

// Regression (issue 11): the tool set cut run_command at 60 s, whatever
// its own timeout, and dropped its output. The command's own timeout now
// decides, and the output up to the cut comes back.
func TestTheToolSetLeavesTheCommandItsOwnTimeout(t *testing.T) {
	c := New(Config{Dir: t.TempDir(), Timeout: 2 * time.Second}) // time for a loaded machine to start a shell
	set, err := tool.NewSet(c)
	if err != nil {
		t.Fatal(err)
	}
	set.SetConfig(tool.Config{Timeout: 50 * time.Millisecond})
	res := set.Call(context.Background(), Name, json.RawMessage(`{"command":"echo before the cut; sleep 100"}`))
	want := "before the cut\n[timed out after 2s; the command and everything it started were killed]"
	if res.Content != want || !res.IsError {
		t.Errorf("result %+v\nwant %q", res, want)
	}
}

func TestTheModelIsToldWhatTheSandboxAllows(t *testing.T) {
	dir := t.TempDir()
	sb, err := sandbox.New(sandbox.Config{Mode: sandbox.Bwrap, Dir: dir})
	sandboxtest.NeedBwrap(t, err)
	d := New(Config{Dir: dir, Sandbox: sb}).Spec().Description
	for _, want := range []string{"only the workspace can be changed", "There is no network"} {
		if !strings.Contains(d, want) {
			t.Errorf("description %q does not say %q", d, want)
		}
	}
	none, err := sandbox.New(sandbox.Config{Mode: sandbox.None, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if d := New(Config{Dir: dir, Sandbox: none}).Spec().Description; strings.Contains(d, "sandbox") {
		t.Errorf("without a sandbox the description says %q", d)
	}
}
