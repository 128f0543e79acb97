package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// TestARunRecordsItsSpecOnceInItsCheckpoint is issue 24's "run records
// the spec twice": the checkpoint keeps the spec once, as the lifecycle
// read it (Checkpoint.Spec), and the process's settings beside it hold
// none; a checkpoint of an earlier version, whose settings held the spec,
// is still read.
func TestARunRecordsItsSpecOnceInItsCheckpoint(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	scenario := filepath.Join(dir, "s.yaml")
	writeFiles(t, dir, map[string]string{"work/notes.txt": "notes\n", "s.yaml": tenSteps(false)})
	res := runCLI(t, "run", "--dir", work, "--provider", "scripted", "--scenario", scenario, "--no-judge",
		"--max-verify-rounds", "0", "--budget-tokens", "3000", "Write nine files")
	if res.code != 9 {
		t.Fatalf("exit %d, want 9 (budget)\n%s", res.code, res.stderr)
	}
	run := runIDLine.FindStringSubmatch(firstLine(res.stderr, "[start · "))[1]
	ck, err := lifecycle.ReadCheckpoint(lifecycle.Config{Dir: work}, run)
	if err != nil {
		t.Fatal(err)
	}
	var settings map[string]json.RawMessage
	if err := json.Unmarshal(ck.Settings, &settings); err != nil {
		t.Fatal(err)
	}
	if _, twice := settings["spec"]; twice {
		t.Errorf("the settings record the spec too: %s", ck.Settings)
	}
	if s := ck.Spec; s == nil || s.BudgetTokens != 3000 || s.ModelName != "scripted" || s.Provider != "scripted" || s.MaxVerifyRounds != -1 ||
		s.Scenario != scenario {
		t.Fatalf("the checkpoint's spec %+v, want the run's, its model resolved", ck.Spec)
	}
	_, spec, err := recordedConfig(ck, "")
	if err != nil || spec.BudgetTokens != 3000 || spec.MaxVerifyRounds != 0 || spec.Task != "Write nine files" || !spec.NoJudge {
		t.Errorf("rebuilt spec %+v (%v), want the run's, its 0 verify rounds the CLI's", spec, err)
	}

	t.Run("an earlier version's checkpoint, the spec in its settings, is read", func(t *testing.T) {
		old, err := json.Marshal(runSettings{Dir: work, Spec: &taskfile.Spec{Task: "t", Spec: runspec.Spec{Limits: runspec.Limits{MaxSteps: 9}}}})
		if err != nil {
			t.Fatal(err)
		}
		_, spec, err := recordedConfig(&lifecycle.Checkpoint{Settings: old}, "")
		if err != nil || spec.MaxSteps != 9 || spec.Task != "t" {
			t.Errorf("spec %+v (%v)", spec, err)
		}
		if !strings.Contains(string(old), `"spec"`) {
			t.Errorf("the old settings %s", old)
		}
	})
}
