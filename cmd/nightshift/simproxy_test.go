package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readURL reads a server child's first stdout line, which must be
// exactly its base URL.
func readURL(t *testing.T, c *child) string {
	t.Helper()
	first, err := bufio.NewReader(c.stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no first line on stdout: %v", err)
	}
	url := strings.TrimSuffix(first, "\n")
	if !regexp.MustCompile(`^http://127\.0\.0\.1:[1-9][0-9]*$`).MatchString(url) {
		t.Fatalf("the first stdout line is %q, want exactly the base URL", first)
	}
	return url
}

// stop interrupts a server child, which must exit 130 (interrupted, as
// every command a signal stops), and returns its stderr.
func stop(t *testing.T, c *child) string {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, stderr := c.wait(t)
	if code != 130 {
		t.Errorf("exited %d after SIGINT, want 130\n%s", code, stderr)
	}
	return stderr
}

// toolCall is a tool call as a run's events record it.
type toolCall struct{ Tool, Input string }

// runEvents reads the tool calls and the retries of an --events file.
func runEvents(t *testing.T, path string) (calls []toolCall, retries int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e struct{ Type, Tool, Input string }
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		switch e.Type {
		case "tool":
			calls = append(calls, toolCall{e.Tool, e.Input})
		case "retry":
			retries++
		}
	}
	return calls, retries
}

const readScenario = `
turns:
  - tool_calls: [{name: list_dir, input: {path: .}}]
  - tool_calls: [{name: read_file, input: {path: a.txt}}]
  - text: "a.txt says a."
`

// TestARecordedSessionReplaysToTheSameRun records a run through `sim
// proxy --record` in front of `sim serve`, with a 429 the proxy injects
// and a reply it truncates, replays the cassette with `sim serve
// --cassette`, and runs the same task against the replay: the same
// outcome, the same answer, the same tool calls, the same retries.
func TestARecordedSessionReplaysToTheSameRun(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml":       readScenario,
		"faults.yaml":  "at:\n  1: {status: 429, headers: {retry-after-ms: \"3\"}}\n",
		"work1/a.txt":  "a\n",
		"work2/a.txt":  "a\n",
		"work3/a.txt":  "a\n",
		"other/b.text": "b\n",
	})
	sim := startChild(t, dir, "sim", "serve", "--scenario", "s.yaml")
	simURL := readURL(t, sim)
	prox := startChild(t, dir, "sim", "proxy", "--upstream", simURL, "--faults", "faults.yaml", "--record", "session.jsonl")
	proxURL := readURL(t, prox)

	run := func(url, work string) (result, []toolCall, int) {
		events := filepath.Join(dir, work+".events")
		res := runCLIEnv(t, []string{"ANTHROPIC_API_KEY=sk-ant-made-up-for-the-replay-test", "ANTHROPIC_BASE_URL=" + url},
			"run", "--dir", filepath.Join(dir, work), "--no-judge", "--backoff", "1ms", "--events", events, "Read a.txt")
		calls, retries := runEvents(t, events)
		return res, calls, retries
	}
	rec, recCalls, recRetries := run(proxURL, "work1")
	if rec.code != 0 || rec.stdout != "a.txt says a.\n" || recRetries != 1 || len(recCalls) != 2 {
		t.Fatalf("the recorded run: exit %d, stdout %q, %d retries, calls %v\n%s", rec.code, rec.stdout, recRetries, recCalls, rec.stderr)
	}
	proxLog := stop(t, prox)
	stop(t, sim)
	for _, want := range []string{
		"proxy: upstream " + simURL + " · #1=429 · recording to session.jsonl",
		"proxy: #1 POST /v1/messages stream=false -> fault 429: answered 429 (retry-after-ms=3), not forwarded",
		"proxy: #2 POST /v1/messages stream=false -> forwarded 200",
		"proxy: #4 POST /v1/messages stream=false -> forwarded 200",
	} {
		if !strings.Contains(proxLog, want) {
			t.Errorf("the proxy's stderr lacks %q:\n%s", want, proxLog)
		}
	}
	cassetteData := readFile(t, filepath.Join(dir, "session.jsonl"))
	if strings.Contains(cassetteData, "sk-ant-made-up-for-the-replay-test") {
		t.Error("the cassette holds the run's key")
	}

	replay := startChild(t, dir, "sim", "serve", "--cassette", "session.jsonl")
	replayURL := readURL(t, replay)
	got, gotCalls, gotRetries := run(replayURL, "work2")
	if got.code != rec.code || got.stdout != rec.stdout || gotRetries != recRetries {
		t.Errorf("the replayed run: exit %d, stdout %q, %d retries; recorded: exit %d, stdout %q, %d retries\n%s",
			got.code, got.stdout, gotRetries, rec.code, rec.stdout, recRetries, got.stderr)
	}
	if diff := cmp.Diff(recCalls, gotCalls); diff != "" {
		t.Errorf("the replayed run's tool calls differ (-recorded +replayed):\n%s", diff)
	}

	t.Run("a run on another wire finds no recorded place and is told so", func(t *testing.T) {
		res := runCLIEnv(t, []string{"OPENAI_API_KEY=sk-made-up", "OPENAI_BASE_URL=" + replayURL},
			"run", "--provider", "openai", "--dir", filepath.Join(dir, "work3"), "--no-judge", "--backoff", "1ms", "Read a.txt")
		if res.code != 5 || !strings.Contains(res.stderr, "no recorded exchange matches") {
			t.Errorf("exit %d, want 5 (api-failure) naming the mismatch\n%s", res.code, res.stderr)
		}
	})
	t.Run("a run whose conversation differs is answered by its place, as a scenario's turns are", func(t *testing.T) {
		res := runCLIEnv(t, []string{"ANTHROPIC_API_KEY=sk-ant-made-up", "ANTHROPIC_BASE_URL=" + replayURL},
			"run", "--dir", filepath.Join(dir, "other"), "--no-judge", "--backoff", "1ms", "A different task")
		if res.code != 0 || res.stdout != rec.stdout {
			t.Errorf("exit %d, stdout %q\n%s", res.code, res.stdout, res.stderr)
		}
	})
	replayLog := stop(t, replay)
	for _, want := range []string{
		"cassette: POST /v1/messages stream=false -> exchange n=1 (same conversation, attempt 1) [fault 429]",
		"cassette: POST /v1/messages stream=false -> exchange n=1 (same position 0 and system prompt, 1 of 2) [fault 429]",
		"cassette: POST /chat/completions: no recorded exchange matches (openai call at position 0",
	} {
		if !strings.Contains(replayLog, want) {
			t.Errorf("the replay's stderr lacks %q:\n%s", want, replayLog)
		}
	}
}

func TestSimServeTakesAScenarioOrACassette(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": "turns: [{text: hi}]\n", "c.jsonl": "{\"cassette\":1}\n", "bad.jsonl": "hello\n"})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "serve", "--scenario", filepath.Join(dir, "s.yaml"), "--cassette", filepath.Join(dir, "c.jsonl")}, "a --scenario or a --cassette, not both"},
		{[]string{"sim", "serve"}, "or --cassette FILE"},
		{[]string{"sim", "serve", "--cassette", filepath.Join(dir, "none.jsonl")}, "no such file"},
		{[]string{"sim", "serve", "--cassette", filepath.Join(dir, "bad.jsonl")}, "not a cassette header"},
	} {
		res := runCLI(t, c.args...)
		if res.code != 2 || !strings.Contains(res.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, res.code, res.stderr, c.want)
		}
	}
}

func TestSimProxyUsageErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"taken.jsonl": "x\n", "f.yaml": "rate: {teapot: 1}\n"})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "proxy"}, "needs --upstream URL"},
		{[]string{"sim", "proxy", "--upstream", "api.anthropic.com"}, "want an http:// or https:// URL"},
		{[]string{"sim", "proxy", "--upstream", "http://127.0.0.1:9", "--fault", "429"}, "want KIND=RATE"},
		{[]string{"sim", "proxy", "--upstream", "http://127.0.0.1:9", "--fault", "teapot=0.1"}, `unknown fault "teapot"`},
		{[]string{"sim", "proxy", "--upstream", "http://127.0.0.1:9", "--faults", filepath.Join(dir, "f.yaml")}, `unknown fault "teapot"`},
		{[]string{"sim", "proxy", "--upstream", "http://127.0.0.1:9", "--faults", filepath.Join(dir, "none.yaml")}, "no such file"},
		{[]string{"sim", "proxy", "--upstream", "http://127.0.0.1:9", "--seed", "3"}, "--seed seeds a fault schedule"},
		{[]string{"sim", "proxy", "--upstream", "http://127.0.0.1:9", "--record", filepath.Join(dir, "taken.jsonl")}, "exists: name a new file"},
		{[]string{"sim", "proxy", "--upstream", "http://127.0.0.1:9", "extra"}, "takes no arguments"},
	} {
		res := runCLI(t, c.args...)
		if res.code != 2 || !strings.Contains(res.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, res.code, res.stderr, c.want)
		}
	}
	if got := readFile(t, filepath.Join(dir, "taken.jsonl")); got != "x\n" {
		t.Errorf("the existing cassette was touched: %q", got)
	}
}
