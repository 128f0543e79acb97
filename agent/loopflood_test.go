package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
)

// countingSet is a tool set of one read-class tool, ping, that counts
// the times it runs.
func countingSet(t *testing.T, runs *atomic.Int64) *tool.Set {
	t.Helper()
	ping := tool.Func("ping", "answers pong", tool.Read, func(context.Context, struct {
		Host string `json:"host"`
	}) (string, error) {
		runs.Add(1)
		return "pong", nil
	})
	set, err := tool.NewSet(ping)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// reply is one scripted turn of n calls of ping with the same input.
func reply(n int) string {
	calls := strings.Repeat(`{name: ping, input: {host: a}}, `, n)
	return "  - tool_calls: [" + strings.TrimSuffix(calls, ", ") + "]\n"
}

// Regression (issue 25): one reply of 40 identical calls ran all 40
// before the loop detector spoke, and it then said "repeated 4 times".
// It counts within the reply: the calls past the limit are not run, the
// warning counts them all, and the next such call ends the run without
// running.
func TestTheLoopDetectorCountsWithinOneReply(t *testing.T) {
	f := setup(t, "turns:\n"+reply(40)+reply(1)+"  - text: never reached\n", nil)
	var runs atomic.Int64
	f.cfg.Tools = countingSet(t, &runs)
	res := agent.Run(context.Background(), f.cfg, "ping")
	if res.Outcome != agent.StepLimit || res.Reason != "loop: ping repeated 41 times" || !errors.Is(res.Err, agent.ErrLoop) {
		t.Fatalf("outcome %s (%s), want step-limit: loop: ping repeated 41 times", res.Outcome, res.Reason)
	}
	if n := runs.Load(); n != agent.DefaultLoopLimit {
		t.Errorf("ping ran %d times, want %d: the calls past the limit run no more", n, agent.DefaultLoopLimit)
	}
	reqs := f.model.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	var notRun, warnings int
	for _, m := range reqs[1].Messages {
		for _, b := range m.Content {
			switch {
			case b.Type == llm.ToolResultBlock && b.IsError && strings.HasPrefix(b.Text, "Not run: you called ping with the same input"):
				notRun++
			case b.Type == llm.TextBlock && strings.Contains(b.Text, "same input 40 times in a row") && strings.Contains(b.Text, "The last 37 of those calls were not run"):
				warnings++
			}
		}
	}
	if notRun != 37 || warnings != 1 {
		t.Errorf("the model read %d calls not run and %d warnings, want 37 and 1", notRun, warnings)
	}
	if got := f.lines("loop"); len(got) != 2 || got[0] != "[loop · warned: ping repeated 3 times]" || got[1] != "[loop · stopped: ping repeated 41 times]" {
		t.Errorf("loop events %q", got)
	}
}

// A reply's other calls still run: only the repeats of the streak are
// held back.
func TestTheLoopDetectorHoldsBackOnlyTheRepeats(t *testing.T) {
	f := setup(t, `
turns:
  - tool_calls: [{name: ping, input: {host: a}}, {name: ping, input: {host: a}}, {name: ping, input: {host: a}}, {name: ping, input: {host: a}}, {name: ping, input: {host: b}}]
  - text: done
`, nil)
	var runs atomic.Int64
	f.cfg.Tools = countingSet(t, &runs)
	res := agent.Run(context.Background(), f.cfg, "ping")
	if res.Outcome != agent.Done {
		t.Fatalf("outcome %s (%s), want done", res.Outcome, res.Reason)
	}
	if n := runs.Load(); n != 4 {
		t.Errorf("ping ran %d times, want 4: three of a, one of b", n)
	}
}
