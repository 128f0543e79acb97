package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// batchScenario writes notes.md in three tool calls and then answers; the
// last turn repeats, so a task whose check never passes meets the
// verifier again until its rounds run out.
const batchScenario = `
loop: true
turns:
  - tool_calls: [{name: write_file, input: {path: notes.md, content: "# Notes\n"}}]
  - tool_calls: [{name: read_file, input: {path: notes.md}}]
  - tool_calls: [{name: list_dir, input: {path: .}}]
  - text: "Wrote notes.md."
`

// runBatchCmd runs `nightshift batch args...` in dir and returns its exit
// status, stdout and stderr.
func runBatchCmd(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	cmd := newBatchCmd()
	cmd.SetArgs(args)
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	code := exitCode(cmd.ExecuteContext(context.Background()), &stderr)
	return code, stdout.String(), stderr.String()
}

func batchFixture(t *testing.T, tasks string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"s.yaml":         batchScenario,
		"tasks.yaml":     tasks,
		"repo/README.md": "# repo\n",
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestBatchCommand(t *testing.T) {
	flags := []string{"--provider", "scripted", "--scenario", "s.yaml", "--no-judge", "--parallel", "2"}
	tests := []struct {
		name   string
		tasks  string
		args   []string
		want   int
		stdout []string
		stderr []string
	}{
		{
			name: "every task done exits 0 with the summary on stdout and a line per task on stderr",
			tasks: `
- {name: one, task: Write notes.md, dir: repo, checks: ["exists:notes.md"]}
- {name: two, task: Write notes.md, checks: ["exists:notes.md"]}
- {name: three, task: Write notes.md}
`,
			want:   0,
			stdout: []string{"done 3 · unverified 0 · failed 0 · 3 tasks", "workspaces: work"},
			stderr: []string{"/3 one done steps=4", "/3 two done steps=4", "/3 three done steps=4"},
		},
		{
			name: "a task that never passes its check makes it exit 8, its FAILs counted by check",
			tasks: `
- {name: fine, task: Write notes.md}
- {name: stuck, task: Write notes.md, checks: ["exists:missing.md"], max_verify_rounds: 2}
`,
			want:   8,
			stdout: []string{"stuck", "unverified", "done 1 · unverified 1 · failed 0", "FAILs by check: exists 3"},
		},
		{
			name:   "a check that cannot run is a usage error before anything runs",
			tasks:  `[{name: bad, task: t, checks: ["min-chars:notes.md:many"]}]`,
			want:   2,
			stderr: []string{"task bad: check"},
		},
		{
			name:   "run's per-task flags are refused",
			tasks:  `[{task: t}]`,
			args:   []string{"--dir", "repo"},
			want:   2,
			stderr: []string{"--dir is set per task in a batch"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := batchFixture(t, tt.tasks)
			args := append(append([]string{"--tasks", "tasks.yaml", "--work", "work"}, flags...), tt.args...)
			code, stdout, stderr := runBatchCmd(t, dir, args...)
			if code != tt.want {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.want, stdout, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
		})
	}
	t.Run("each task's events are in its log beside its workspace", func(t *testing.T) {
		dir := batchFixture(t, "[{name: solo, task: Write notes.md}]")
		if code, _, stderr := runBatchCmd(t, dir, append([]string{"--tasks", "tasks.yaml", "--work", "work"}, flags...)...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		log, err := os.ReadFile(filepath.Join(dir, "work", "001-solo.log"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(log), "[turn · tool_use=write_file]") {
			t.Errorf("log lacks the run's event lines:\n%s", log)
		}
	})
}

func TestBatchTaskListFormats(t *testing.T) {
	flags := []string{"--work", "work", "--provider", "scripted", "--scenario", "s.yaml", "--no-judge"}
	tests := []struct {
		name  string
		files map[string]string
		tasks string
		want  []string // names in the summary
	}{
		{
			name:  "a YAML list",
			files: map[string]string{"t.yaml": "- {name: a, task: Write notes.md}\n- {task: Write notes.md}\n"},
			tasks: "t.yaml",
			want:  []string{"a", "task-2"},
		},
		{
			name:  "a YAML map of tasks",
			files: map[string]string{"t.yaml": "tasks:\n  - {name: a, task: Write notes.md}\n  - {name: b, task: Write notes.md}\n"},
			tasks: "t.yaml",
			want:  []string{"a", "b"},
		},
		{
			name:  "JSON lines",
			files: map[string]string{"t.jsonl": `{"name": "a", "task": "Write notes.md"}` + "\n\n" + `{"task": "Write notes.md", "checks": ["exists:notes.md"]}` + "\n"},
			tasks: "t.jsonl",
			want:  []string{"a", "task-2"},
		},
		{
			name: "a folder of task files, in name order",
			files: map[string]string{
				"tasks/b.yaml": "task: Write notes.md\n",
				"tasks/a.json": `{"task": "Write notes.md"}`,
				"tasks/notes":  "not a task file",
			},
			tasks: "tasks",
			want:  []string{"a", "b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := batchFixture(t, "[]")
			for name, content := range tt.files {
				os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
				os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
			}
			code, stdout, stderr := runBatchCmd(t, dir, append([]string{"--tasks", tt.tasks}, flags...)...)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			var names []string
			for _, line := range strings.Split(stdout, "\n")[1:] {
				if f := strings.Fields(line); len(f) > 1 && f[1] == "done" {
					names = append(names, f[0])
				}
			}
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("tasks run (-want +got):\n%s\n%s", diff, stdout)
			}
		})
	}
}
