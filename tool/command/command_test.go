package command

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nightshift-dev/nightshift/tool"
)

func run(t *testing.T, c *Command, line string) tool.Result {
	t.Helper()
	in, err := json.Marshal(Input{Command: line})
	if err != nil {
		t.Fatal(err)
	}
	return c.Run(context.Background(), in)
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "here.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := New(Config{Dir: dir})
	tests := []struct {
		name, line string
		want       tool.Result
	}{
		{"a command that succeeds returns its output and exit status 0", "echo hello",
			tool.Result{Content: "hello\n[exit status 0]"}},
		{"stdout and stderr come back combined in order", "echo out; echo err >&2; echo out2",
			tool.Result{Content: "out\nerr\nout2\n[exit status 0]"}},
		{"a non-zero exit is an error result that still shows the output", "echo broken; exit 3",
			tool.Result{Content: "broken\n[exit status 3]", IsError: true}},
		{"the workspace is the working directory", "ls",
			tool.Result{Content: "here.txt\n[exit status 0]"}},
		{"a command with no output shows only the status", "true",
			tool.Result{Content: "[exit status 0]"}},
		{"output without a final newline is still separated from the status", "printf abc",
			tool.Result{Content: "abc\n[exit status 0]"}},
		{"an empty command is refused", "  ",
			tool.Result{Content: "run_command: command is empty", IsError: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, run(t, c, tt.line)); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunTimeoutKillsTheProcessGroup(t *testing.T) {
	dir := t.TempDir()
	// The timeout is long enough for "echo" to run on a loaded machine
	// and short beside the sleeps: the test is about what the cut keeps
	// and kills, not about how quickly a shell starts.
	c := New(Config{Dir: dir, Timeout: time.Second})
	// The background sleep is a grandchild in the same group; if the
	// group were not killed, it would keep the output pipe open and Run
	// would wait thirty seconds for it.
	start := time.Now()
	res := run(t, c, "echo started; sleep 30 & sleep 30")
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("Run took %s; the process group was not killed at the timeout", elapsed)
	}
	want := tool.Result{Content: "started\n[timed out after 1s; the command and everything it started were killed]", IsError: true}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

func TestRunBackgroundChildDoesNotHoldTheResult(t *testing.T) {
	c := New(Config{Dir: t.TempDir()})
	start := time.Now()
	res := run(t, c, "sleep 5 >/dev/null 2>&1 & echo done")
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Errorf("Run took %s; it waited for a background child", elapsed)
	}
	if diff := cmp.Diff(tool.Result{Content: "done\n[exit status 0]"}, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

func TestRunCanceledContext(t *testing.T) {
	c := New(Config{Dir: t.TempDir()})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := c.Run(ctx, json.RawMessage(`{"command":"sleep 5"}`))
	want := tool.Result{Content: "[stopped before it finished; the command and everything it started were killed]", IsError: true}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

func TestRunTruncatesToTheLastBytes(t *testing.T) {
	c := New(Config{Dir: t.TempDir(), MaxOutput: 10})
	res := run(t, c, "printf '0123456789abcdefghij'")
	want := "[output truncated: the first 10 bytes were dropped; the last 10 bytes follow]\nabcdefghij\n[exit status 0]"
	if diff := cmp.Diff(want, res.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
}

func TestTail(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"writes that fit are kept whole", []string{"ab", "cd"}, "abcd"},
		{"small writes past the limit drop the oldest bytes",
			[]string{"abc", "def", "gh"},
			"[output truncated: the first 3 bytes were dropped; the last 5 bytes follow]\ndefgh"},
		{"one write larger than the limit keeps its end",
			[]string{"a", "0123456789"},
			"[output truncated: the first 6 bytes were dropped; the last 5 bytes follow]\n56789"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := newTail(5)
			for _, w := range tt.writes {
				tl.Write([]byte(w))
			}
			if diff := cmp.Diff(tt.want, tl.String()); diff != "" {
				t.Errorf("tail (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSafeEnvDropsCredentials(t *testing.T) {
	env := []string{"PATH=/bin", "ANTHROPIC_API_KEY=sk-ant-x", "GITHUB_TOKEN=ghp", "HOME=/root", "db_password=x", "OPENAI_APIKEY=y"}
	want := []string{"PATH=/bin", "HOME=/root"}
	if diff := cmp.Diff(want, SafeEnv(env)); diff != "" {
		t.Errorf("SafeEnv (-want +got):\n%s", diff)
	}
}

func TestRunDoesNotLeakAPIKeys(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value")
	c := New(Config{Dir: t.TempDir()})
	res := run(t, c, "env")
	if strings.Contains(res.Content, "sk-ant-secret-value") {
		t.Error("the command's output shows the API key")
	}
}

func TestSpecAndClass(t *testing.T) {
	c := New(Config{Dir: t.TempDir()})
	if c.Class() != tool.Danger {
		t.Errorf("Class() = %q, want danger", c.Class())
	}
	spec := c.Spec()
	if spec.Name != Name {
		t.Errorf("Spec().Name = %q, want %q", spec.Name, Name)
	}
	var schema map[string]any
	if err := json.Unmarshal(spec.InputSchema, &schema); err != nil {
		t.Errorf("InputSchema is not JSON: %v", err)
	}
}

func TestRunKilledBySignal(t *testing.T) {
	c := New(Config{Dir: t.TempDir()})
	res := run(t, c, "echo before; kill -9 $$")
	// Alone, the shell is killed; as the child of a PID namespace's first
	// process (bwrap's, or the shell that waits in its place), it reports
	// 128+9, and that shell may say "Killed" first.
	if !res.IsError || !strings.HasPrefix(res.Content, "before\n") ||
		!strings.HasSuffix(res.Content, "[killed by signal killed]") && !strings.HasSuffix(res.Content, "[exit status 137 (killed by signal 9)]") {
		t.Errorf("result %+v; want the output and the kill", res)
	}
}

// TestTheCommandsSchemaCompiles is what lets the command tool be
// tool.Prechecked: its schema, a constant, is compiled here rather than
// at every run's start.
func TestTheCommandsSchemaCompiles(t *testing.T) {
	var c tool.Tool = New(Config{Dir: t.TempDir()})
	if _, ok := c.(tool.Prechecked); !ok {
		t.Error("the command tool is not Prechecked")
	}
	if err := tool.CheckSchema(c); err != nil {
		t.Error(err)
	}
}
