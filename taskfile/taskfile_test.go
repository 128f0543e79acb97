package taskfile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/taskfile"
)

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	t.Run("a task file holds the task, its checks, the rubric and the limits", func(t *testing.T) {
		p := write(t, dir, "install.yaml", `
task: Extract the install steps into docs/install.md.
checks:
  - exists:docs/install.md
  - "contains:docs/install.md:step: 5"
rubric: All five steps, in order.
max_steps: 12
max_verify_rounds: 1
retries: 0
approve: [run_command=deny]
`)
		s, err := taskfile.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		zero := 0
		want := &taskfile.Spec{
			Name: "install", Task: "Extract the install steps into docs/install.md.",
			Spec: runspec.Spec{
				Verify: runspec.Verify{Checks: []string{"exists:docs/install.md", "contains:docs/install.md:step: 5"},
					Rubric: "All five steps, in order.", MaxVerifyRounds: 1},
				Limits: runspec.Limits{MaxSteps: 12, Retries: &zero},
				Gate:   runspec.Gate{Approve: []string{"run_command=deny"}},
			},
			BaseDir: dir,
		}
		if diff := cmp.Diff(want, s, cmpopts.IgnoreUnexported(taskfile.Spec{})); diff != "" {
			t.Errorf("spec (-want +got):\n%s", diff)
		}
	})
	t.Run("budgets, the time limit, the model table and the interrupt rule", func(t *testing.T) {
		p := write(t, dir, "budget.yaml", `
task: x
budget_usd: 0.5
budget_tokens: 200000
timeout: 90m
loop_limit: -1
models_file: prices.yaml
rollback_on_interrupt: true
`)
		s, err := taskfile.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		off := -1
		want := &taskfile.Spec{Name: "budget", Task: "x", Spec: runspec.Spec{
			Limits:  runspec.Limits{BudgetUSD: 0.5, BudgetTokens: 200000, Timeout: taskfile.Duration(90 * time.Minute), LoopLimit: &off},
			LongRun: runspec.LongRun{ModelsFile: "prices.yaml"}, End: runspec.End{RollbackOnInterrupt: true}},
			BaseDir: dir}
		if diff := cmp.Diff(want, s, cmpopts.IgnoreUnexported(taskfile.Spec{})); diff != "" {
			t.Errorf("spec (-want +got):\n%s", diff)
		}
		list := write(t, dir, "list.jsonl", `{"task": "y", "timeout": "2h", "budget_usd": 1}`+"\n")
		specs, err := taskfile.LoadList(list)
		if err != nil || time.Duration(specs[0].Timeout) != 2*time.Hour || specs[0].BudgetUSD != 1 {
			t.Errorf("JSON lines: %+v, %v; want the timeout as a duration string", specs, err)
		}
	})
	for _, tc := range []struct{ name, content, want string }{
		{"a typo in a key is an error, not silently ignored", "task: x\nmax_step: 3\n", "max_step"},
		{"a timeout that is not a duration says how to write one", "task: x\ntimeout: soon\n", "write 90m"},
		{"a negative budget is refused", "task: x\nbudget_usd: -1\n", "negative"},
		{"a file without a task says what is missing", "checks: [exists:a]\n", "task text is empty"},
		{"negative limits are refused", "task: x\nmax_steps: -1\n", "negative"},
		// Regression: "limits must not be negative" named no key.
		{"a negative limit names its key", "task: x\ncontext_window: -1\n", "context_window must not be negative"},
		{"a negative budget names its key", "task: x\nbudget_tokens: -5\n", "budget_tokens must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := taskfile.Load(write(t, dir, "bad.yaml", tc.content))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
	t.Run("a missing file is an error naming it", func(t *testing.T) {
		if _, err := taskfile.Load(filepath.Join(dir, "nope.yaml")); err == nil || !strings.Contains(err.Error(), "nope.yaml") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestLoadList(t *testing.T) {
	names := func(specs []*taskfile.Spec) []string {
		var out []string
		for _, s := range specs {
			out = append(out, s.Name+"="+s.Task)
		}
		return out
	}
	for _, tc := range []struct {
		name, file, content string
		want                []string
	}{
		{"a YAML list", "tasks.yaml", "- task: a\n- task: b\n  name: second\n", []string{"task-1=a", "second=b"}},
		{"a YAML map with tasks", "tasks.yml", "tasks:\n  - task: a\n", []string{"task-1=a"}},
		{"JSON lines, blank lines skipped", "tasks.jsonl", "{\"task\":\"a\"}\n\n{\"task\":\"b\",\"checks\":[\"exists:x\"]}\n", []string{"task-1=a", "task-2=b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			specs, err := taskfile.LoadList(write(t, t.TempDir(), tc.file, tc.content))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, names(specs)); diff != "" {
				t.Error(diff)
			}
		})
	}
	t.Run("a folder of task files, sorted by name", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "b.yaml", "task: second\n")
		write(t, dir, "a.yaml", "task: first\n")
		write(t, dir, "notes.txt", "not a task")
		specs, err := taskfile.LoadList(dir)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"a=first", "b=second"}, names(specs)); diff != "" {
			t.Error(diff)
		}
	})
	t.Run("a bad JSON line names its line", func(t *testing.T) {
		_, err := taskfile.LoadList(write(t, t.TempDir(), "t.jsonl", "{\"task\":\"a\"}\n{\"task\":\n"))
		if err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("an empty list is an error", func(t *testing.T) {
		if _, err := taskfile.LoadList(write(t, t.TempDir(), "t.yaml", "[]\n")); err == nil {
			t.Error("want an error")
		}
	})
}

// TestAMisspeltKeyInABatchListNamesTheField is the regression test for a
// YAML list with a misspelt key, which was reported as the other form's
// mismatch (cannot unmarshal !!seq into struct { Tasks ... }).
func TestAMisspeltKeyInABatchListNamesTheField(t *testing.T) {
	for _, doc := range []string{
		"- {name: a, task: t}\n- {name: b, task: t, max_step: 5}\n",
		"tasks:\n  - {name: b, task: t, max_step: 5}\n",
	} {
		path := filepath.Join(t.TempDir(), "tasks.yaml")
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := taskfile.LoadList(path)
		if err == nil || !strings.Contains(err.Error(), "max_step") || strings.Contains(err.Error(), "!!seq") {
			t.Errorf("%q: err = %v; want it to name max_step", doc, err)
		}
	}
}
