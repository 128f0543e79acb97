package sandbox_test

import (
	"context"
	"testing"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/sandbox"
)

// TestARunPaysForTheScanOnlyWhenItStartsACommand is a regression test
// (issue 23, item 10): the lifecycle made the sandbox's bounded scan of
// the homes before its first step, so a run whose model answered at
// once, with no command, paid for it at every start. A run's first
// command makes it, once.
func TestARunPaysForTheScanOnlyWhenItStartsACommand(t *testing.T) {
	sandbox.NeedBwrap(t)
	for _, c := range []struct {
		name, turns string
		scans       int64
	}{
		{"no command", "turns:\n  - text: Nothing to do.\n", 0},
		{"two commands", "turns:\n  - tool_calls: [{name: run_command, input: {command: \"true\"}}]\n" +
			"  - tool_calls: [{name: run_command, input: {command: \"true\"}}]\n  - text: Ran it twice.\n", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc, err := scripted.Parse([]byte(c.turns))
			if err != nil {
				t.Fatal(err)
			}
			spec := &runspec.Spec{}
			spec.Sandbox = "bwrap"
			spec.Approve = runspec.List{"run_command=allow"}
			before := sandbox.OutsideScans()
			var ev event.Recorder
			res, err := lifecycle.Run(context.Background(), lifecycle.Config{Spec: spec, Dir: t.TempDir(), StateDir: t.TempDir(),
				Model: scripted.New(sc, scripted.Config{}), Events: &ev}, "say whether there is anything to do")
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != "done" {
				t.Fatalf("outcome %s, want done", res.Outcome)
			}
			if n := sandbox.OutsideScans() - before; n != c.scans {
				t.Errorf("the run scanned outside its workspace %d times, want %d\n%v", n, c.scans, ev.Events())
			}
		})
	}
}
