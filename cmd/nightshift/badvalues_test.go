package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/night"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// TestEveryKindOfBadValueIsNamedByEveryFrontEnd: one validation (the run
// spec's Validate) for ranges, NaN, unknown providers, rule syntax and
// policy names, and each front end names the value as the person wrote
// it: the flag, the task file's key with its file and line, a batch
// task line's key and line, a pipeline role's roles.builder.KEY and line
// (issue 24).
func TestEveryKindOfBadValueIsNamedByEveryFrontEnd(t *testing.T) {
	for _, tt := range []struct {
		name  string
		flag  string // --flag=value
		key   string // key: value of a task file and a batch line
		role  string // key: value of the builder role; "" where a role has no such value
		fromF string // what the flag's error names
	}{
		{"a budget that is not a number", "--budget-usd=NaN", "budget_usd: .nan", "budget_usd: .nan", "--budget-usd"},
		{"a negative loop limit below -1", "--loop-limit=-2", "loop_limit: -2", "loop_limit: -2", "--loop-limit"},
		{"a typo'd provider of the judge", "--judge-model=antropic:x", "judge_model: antropic:x", "", "--judge-model"},
		{"a rule that cannot be parsed", "--check=min-chars:a.md:many", "checks: min-chars:a.md:many", "checks: min-chars:a.md:many", "min-chars"},
		{"a gate policy that does not exist", "--approve=danger=maybe", "approve: danger=maybe", "approve: danger=maybe", "--approve"},
		{"a sandbox mode that does not exist", "--sandbox=maybe", "sandbox: maybe", "sandbox: maybe", "--sandbox"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var f runFlags
			cmd := &cobra.Command{Use: "run"}
			addRunFlags(cmd, &f)
			if err := cmd.ParseFlags([]string{tt.flag}); err != nil {
				t.Fatal(err)
			}
			if _, err := mergeTask(cmd, &f, "x"); err == nil || exitOf(err) != 2 || !strings.Contains(err.Error(), tt.fromF) {
				t.Errorf("flag %s: %v (exit %d), want a usage error naming %s", tt.flag, err, exitOf(err), tt.fromF)
			}
			key := strings.SplitN(tt.key, ":", 2)[0]
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"t.yaml": "task: x\n" + tt.key + "\n",
				"l.yaml": "- task: a\n- task: b\n  " + tt.key + "\n",
			})
			_, err := taskfile.Load(filepath.Join(dir, "t.yaml"))
			if err == nil || !strings.Contains(err.Error(), "t.yaml") || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "line 2") {
				t.Errorf("task file: %v, want t.yaml, %s and line 2", err, key)
			}
			_, err = taskfile.LoadList(filepath.Join(dir, "l.yaml"))
			if err == nil || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "line 3") {
				t.Errorf("batch line: %v, want %s and line 3", err, key)
			}
			if tt.role == "" {
				return
			}
			roleKey := strings.SplitN(tt.role, ":", 2)[0]
			writeFiles(t, dir, map[string]string{"pipeline.yaml": fmt.Sprintf(
				"window: {start: \"22:00\", end: \"06:00\"}\nmodels: {m1: {provider: scripted, scenario: s.yaml}}\nroles:\n  builder:\n    models: [m1]\n    %s\n", tt.role)})
			_, err = night.LoadPipeline(filepath.Join(dir, "pipeline.yaml"))
			if err == nil || !strings.Contains(err.Error(), "roles.builder."+roleKey) || !strings.Contains(err.Error(), "line 6") {
				t.Errorf("pipeline role: %v, want roles.builder.%s and line 6", err, roleKey)
			}
		})
	}
}
