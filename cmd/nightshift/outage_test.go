package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// startSim starts `nightshift sim serve` (this test binary re-executed)
// with args and returns its base URL, and a function that stops it and
// returns its stderr.
func startSim(t *testing.T, dir string, args ...string) (string, func() string) {
	t.Helper()
	c := startChildEnv(t, dir, nil, append([]string{"sim", "serve"}, args...)...)
	url, err := bufio.NewReader(c.stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("sim serve wrote no base URL: %v", err)
	}
	var (
		mu    sync.Mutex
		lines []string
		done  = make(chan struct{})
	)
	go func() {
		defer close(done)
		for c.stderr.Scan() {
			mu.Lock()
			lines = append(lines, c.stderr.Text())
			mu.Unlock()
		}
	}()
	return strings.TrimSpace(url), func() string {
		c.cmd.Process.Kill() //nolint:errcheck // it may be gone
		<-done
		c.cmd.Wait() //nolint:errcheck // killed
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(lines, "\n")
	}
}

// breakerLines counts the breaker events in the processes' stderr.
func breakerLines(stderrs []string) (opens, probes, closes int) {
	for _, s := range stderrs {
		opens += strings.Count(s, "[breaker · open endpoint=")
		probes += strings.Count(s, "[breaker · probe endpoint=")
		closes += strings.Count(s, "[breaker · closed endpoint=")
	}
	return
}

// TestAnOutageInTheMiddleOfTwentyProcessesIsOneFailure is issue 26's
// acceptance (a): twenty separate `nightshift run` processes, four model
// calls each, on one key and one state directory, against `sim serve`
// that goes down (connections reset) after 20 calls for 1.5 s. Their
// shared breaker opens once the failures of all of them reach 3; while it
// is open no process calls; after each cool-off exactly one probes. None
// ends api-failure, and all end done once the server is back.
func TestAnOutageInTheMiddleOfTwentyProcessesIsOneFailure(t *testing.T) {
	const procs = 20
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": fourCallScenario + "\nloop: true\n"})
	url, stop := startSim(t, dir, "--scenario", filepath.Join(dir, "s.yaml"), "--down-after", "20", "--down-for", "1500ms")
	env := []string{"NIGHTSHIFT_STATE_DIR=" + filepath.Join(dir, "state"), "OPENAI_API_KEY=sk-made-up-outage-key"}
	children := make([]*child, procs)
	for i := range children {
		work := filepath.Join(dir, fmt.Sprint(i))
		writeFiles(t, work, map[string]string{"README.md": "x"})
		children[i] = startChildEnv(t, work, env, "run", "--provider", "openai", "--base-url", url,
			"--breaker-failures", "3", "--breaker-cool", "200ms", "--backoff", "20ms",
			"--no-judge", "--check", "exists:notes.md", fmt.Sprintf("task %d: write notes.md", i))
	}
	var stderrs []string
	for i, c := range children {
		code, stderr := c.wait(t)
		stderrs = append(stderrs, stderr)
		if code != 0 {
			t.Errorf("process %d exited %d, want 0 (done):\n%s", i, code, stderr)
		}
		if strings.Contains(stderr, "api-failure") {
			t.Errorf("process %d ended api-failure:\n%s", i, stderr)
		}
	}
	serverLog := stop()
	refused := strings.Count(serverLog, ": down (")
	opens, probes, closes := breakerLines(stderrs)
	if refused == 0 {
		t.Fatalf("the server refused no call: the outage was not met, so the test shows nothing\n%s", serverLog)
	}
	if opens == 0 || probes != opens || closes != 1 {
		t.Errorf("%d opens, %d probes, %d closes: want one probe per half-open spell (one per open) and one close", opens, probes, closes)
	}
	t.Logf("%d processes: %d calls refused during the outage, %d open spells, %d probes", procs, refused, opens, probes)
}

// TestAnOutageLongerThanTheRetryBudgetPausesEveryRun is issue 26's
// acceptance (b): the server is down for as long as the test likes
// (`sim serve --down-for 1h`); each of five processes waits on the shared
// breaker within its 1 s retry budget, then ends paused, unavailable,
// exit 11, its checkpoint kept. The provider comes back (a server on the
// same address, up), and `nightshift run --resume` takes each to done.
func TestAnOutageLongerThanTheRetryBudgetPausesEveryRun(t *testing.T) {
	const procs = 5
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": fourCallScenario + "\nloop: true\n"})
	url, stop := startSim(t, dir, "--scenario", filepath.Join(dir, "s.yaml"), "--down-after", "2", "--down-for", "1h", "--down-status", "529")
	env := []string{"NIGHTSHIFT_STATE_DIR=" + filepath.Join(dir, "state"), "OPENAI_API_KEY=sk-made-up-outage-key"}
	children := make([]*child, procs)
	works := make([]string, procs)
	for i := range children {
		works[i] = filepath.Join(dir, fmt.Sprint(i))
		writeFiles(t, works[i], map[string]string{"README.md": "x"})
		children[i] = startChildEnv(t, works[i], env, "run", "--provider", "openai", "--base-url", url,
			"--breaker-failures", "2", "--breaker-cool", "300ms", "--backoff", "20ms", "--retry-budget", "1s",
			"--no-judge", "--check", "exists:notes.md", fmt.Sprintf("task %d: write notes.md", i))
	}
	resumeLine := regexp.MustCompile(`go on:  nightshift run --resume (\S+)`)
	runs := make([]string, procs)
	for i, c := range children {
		code, stderr := c.wait(t)
		m := resumeLine.FindStringSubmatch(stderr)
		if code != 11 || !strings.Contains(stderr, "unavailable") || m == nil {
			t.Fatalf("process %d exited %d, want 11 (unavailable) with a resume command:\n%s", i, code, stderr)
		}
		runs[i] = m[1]
	}
	stop()

	// The provider is back: the same address, no outage.
	addr := strings.TrimPrefix(url, "http://")
	_, stopUp := startSim(t, dir, "--scenario", filepath.Join(dir, "s.yaml"), "--addr", addr)
	defer stopUp()
	for i := range runs {
		c := startChildEnv(t, works[i], env, "run", "--resume", runs[i])
		if code, stderr := c.wait(t); code != 0 {
			t.Errorf("resumed run %d exited %d, want 0 (done):\n%s", i, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(works[i], "notes.md")); err != nil {
			t.Errorf("resumed run %d: %v", i, err)
		}
	}
}

// A batch whose provider is down past the retry budget: every task
// pauses unavailable, the summary tells them apart from tasks that
// failed, and `batch --resume`, once the provider is back, finishes them.
func TestABatchPausedByAnOutageResumes(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	up := "turns:\n  - tool_calls: [{name: write_file, input: {path: out.txt, content: x}}]\n  - text: Wrote out.txt.\n"
	writeFiles(t, dir, map[string]string{
		"s.yaml":     "down: {after: 0, for: 1h}\n" + up,
		"tasks.yaml": "- name: one\n  task: Write out.txt.\n  checks: [exists:out.txt]\n- name: two\n  task: Write out.txt.\n  checks: [exists:out.txt]\n",
	})
	args := []string{"--tasks", filepath.Join(dir, "tasks.yaml"), "--work", filepath.Join(dir, "work"), "--state-dir", state}
	res := runCLI(t, append([]string{"batch", "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--no-judge",
		"--retry-budget", "500ms", "--backoff", "10ms", "--breaker-failures", "2", "--breaker-cool", "100ms", "--parallel", "1"}, args...)...)
	if res.code != 8 || !strings.Contains(res.stdout, "failed 0 · paused 2 (unavailable 2)") || !strings.Contains(res.stdout, "one (unavailable)") {
		t.Fatalf("exit %d, want 8 with both tasks paused unavailable\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	writeFiles(t, dir, map[string]string{"s.yaml": up}) // the provider is back
	res = runCLI(t, append([]string{"batch", "--resume"}, args...)...)
	if res.code != 0 || !strings.Contains(res.stdout, "done 2 ·") {
		t.Fatalf("batch --resume: exit %d, want 0 with both done\n%s\n%s", res.code, res.stdout, res.stderr)
	}
}
