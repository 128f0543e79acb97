package agent_test

import (
	"context"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
)

// TestOutcomeEventExitComesFromTheCaller: exit codes belong to the
// command that runs the loop (issue 9). The outcome event carries the
// exit field only when the caller hands a table in.
func TestOutcomeEventExitComesFromTheCaller(t *testing.T) {
	outcomeData := func(f *fixture) map[string]any {
		t.Helper()
		evs := f.events.Events()
		last := evs[len(evs)-1]
		if last.Type != "outcome" {
			t.Fatalf("the last event is %s, want outcome", last.Type)
		}
		return last.Data
	}
	t.Run("a library run has no exit status to report", func(t *testing.T) {
		f := setup(t, `{turns: [{text: done}]}`, nil)
		agent.Run(context.Background(), f.cfg, "x")
		if d := outcomeData(f); d["exit"] != nil {
			t.Errorf("outcome event exit = %v, want none", d["exit"])
		}
	})
	t.Run("the caller's table fills it", func(t *testing.T) {
		f := setup(t, `{turns: [{text: done}]}`, nil)
		f.cfg.Exit = func(o agent.Outcome) int {
			if o == agent.Done {
				return 42
			}
			return 1
		}
		agent.Run(context.Background(), f.cfg, "x")
		if d := outcomeData(f); d["exit"] != 42 {
			t.Errorf("outcome event exit = %v, want the table's 42", d["exit"])
		}
	})
}
