package runspec_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/runspec"
)

type doc struct {
	Task         string `yaml:"task"`
	runspec.Spec `yaml:",inline"`
}

func TestDecodeYAMLSpeaksInTheFilesTerms(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		want       []string
		dont       []string
	}{
		{"a misspelt key names the key, its line and the nearest key", "task: x\nmax_step: 3\n",
			[]string{"line 2: unknown key max_step", "did you mean max_steps?", "(the keys here: task,"}, []string{"runspec", "not found in type"}},
		{"a string for a whole number says what is wanted", "task: x\nmax_steps: many\n",
			[]string{`line 2: max_steps is "many": want a whole number`}, []string{"!!str", "int"}},
		{"a bad duration names its key", "task: x\ntimeout: soon\n",
			[]string{`line 2: timeout is "soon": want a duration: write 90m`}, nil},
		{"a mapping for a list says so", "task: x\nchecks: {a: b}\n",
			[]string{"line 2: checks: want a list of strings (or one string)"}, []string{"[]string"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var d doc
			err := runspec.DecodeYAML([]byte(c.yaml), &d)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want %q in it", err, w)
				}
			}
			for _, w := range c.dont {
				if strings.Contains(err.Error(), w) {
					t.Errorf("err = %q has %q in it", err, w)
				}
			}
		})
	}
}

// TestASingleStringWhereAListIsExpectedIsAListOfOne is issue 23's
// `cannot unmarshal !!str … into []string` for `checks: exists:a.md`.
func TestASingleStringWhereAListIsExpectedIsAListOfOne(t *testing.T) {
	var d doc
	if err := runspec.DecodeYAML([]byte("task: x\nchecks: exists:a.md\napprove: run_command=deny\n"), &d); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(runspec.List{"exists:a.md"}, d.Checks); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff(runspec.List{"run_command=deny"}, d.Approve); diff != "" {
		t.Error(diff)
	}
}

// TestASpecSurvivesItsCheckpoint: every field, the flag-only ones too,
// comes back from its JSON as it went in.
func TestASpecSurvivesItsCheckpoint(t *testing.T) {
	var s runspec.Spec
	s.Provider, s.ModelName, s.Stream, s.FallbackModel = "openai", "m", true, "anthropic:x"
	s.MaxSteps, s.Retries, s.LoopLimit, s.MaxCallsPerReply = 5, ptr(0), ptr(-1), 9
	s.Stall = ptr(runspec.Duration(0))
	s.Timeout, s.CommandTimeout = runspec.Duration(90e9), runspec.Duration(5e9)
	s.Checks, s.Approve, s.Env = runspec.List{"exists:a"}, runspec.List{"danger=deny"}, runspec.List{"GOPATH"}
	s.MCP = map[string]runspec.MCPServer{"fs": {Command: runspec.Command{"srv", "--x"}}}
	s.Subagents, s.SubagentSteps, s.Memory, s.OtelFile, s.Keep = true, 4, true, "/t.jsonl", true
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back runspec.Spec
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, back); diff != "" {
		t.Errorf("%s\n%s", data, diff)
	}
}
