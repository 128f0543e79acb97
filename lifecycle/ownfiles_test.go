package lifecycle_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/internal/ownfiles"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/verify"
)

// seenRule passes, and keeps what the verifier was told the run changed:
// what the judge is shown.
type seenRule struct{ changed *[]string }

func (seenRule) Name() string { return "seen" }

func (r seenRule) Check(_ context.Context, in verify.Input) *verify.Failure {
	*r.changed = slices.Clone(in.Changed)
	return nil
}

// Issue 25: with --events inside the workspace (the default with --dir
// .), the events file counted as a file the run changed, and the judge
// read the conversation through it; a failed run's rollback cut it back.
// nightshift's own files are neither the run's change nor the rollback's.
func TestTheJudgeNeverSeesTheEventsFileInTheWorkspace(t *testing.T) {
	for _, outcome := range []agent.Outcome{agent.Done, agent.Unverified} {
		t.Run(string(outcome), func(t *testing.T) {
			f := setup(t, `
turns:
  - tool_calls: [{name: run_command, input: {command: "echo made > made.txt"}}]
  - text: "made it"
`)
			path := filepath.Join(f.dir, "events.jsonl")
			file, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer file.Close()
			defer ownfiles.Add(path)()
			f.cfg.Events = event.Multi(f.events, event.NewJSON(file))
			f.cfg.Spec.Approve = runspec.List{"run_command=allow"}
			var changed []string
			rules := []verify.Rule{seenRule{&changed}}
			if outcome == agent.Unverified {
				rules = append(rules, verify.MinChars("made.txt", 1000))
				f.cfg.Spec.MaxVerifyRounds = -1
			}
			f.cfg.Verifier = &verify.Verifier{Rules: rules}
			res := f.run(t)
			if res.Outcome != outcome {
				t.Fatalf("outcome %s (%s), want %s", res.Outcome, res.Reason, outcome)
			}
			if !slices.Equal(changed, []string{"made.txt"}) {
				t.Errorf("the judge is shown %v, want only made.txt", changed)
			}
			b, _ := os.ReadFile(path)
			if !strings.Contains(string(b), `"outcome"`) || !strings.Contains(string(b), "run_command") {
				t.Errorf("the events file lost the run's events:\n%s", b)
			}
		})
	}
}
