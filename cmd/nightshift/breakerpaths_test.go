package main

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// TestARunFallsOverWhileItsPrimarysBreakerIsOpen is a regression test:
// `nightshift run --fallback-model` with the primary's endpoint down
// waited on its breaker through the retry budget and ended unavailable,
// the fallback never asked. The failure that opens the primary's breaker
// sends the call to the fallback (a fallback event, unavailable), on its
// own endpoint, and the run ends done.
func TestARunFallsOverWhileItsPrimarysBreakerIsOpen(t *testing.T) {
	dir := t.TempDir()
	sc, err := scripted.Parse([]byte("turns:\n  - tool_calls: [{name: write_file, input: {path: out.txt, content: x}}]\n  - text: Wrote out.txt.\n"))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(scripted.NewServer(sc, scripted.ServerConfig{}))
	defer hs.Close()
	writeFiles(t, dir, map[string]string{"s.yaml": "down: {after: 0, for: 1h}\nturns: [{text: never}]\n", "work/a.txt": "a\n"})
	res := runCLIEnv(t, []string{"ANTHROPIC_BASE_URL=" + hs.URL, "ANTHROPIC_API_KEY=test-key-for-the-simulator"},
		"run", "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--dir", filepath.Join(dir, "work"),
		"--state-dir", filepath.Join(dir, "state"), "--no-judge", "--check", "exists:out.txt", "--backoff", "1ms",
		"--breaker-failures", "2", "--breaker-cool", "1h", "--retry-budget", "1m", "--fallback-model", "anthropic:claude-haiku-4-5", "write out.txt")
	if res.code != 0 || !strings.Contains(res.stderr, "[breaker · open endpoint=scripted failures=2 cool=1h0m0s]") ||
		strings.Count(res.stderr, "[fallback · ") != 1 || !strings.Contains(res.stderr, ": unavailable;") {
		t.Fatalf("exit %d, want 0 with the breaker opened and one fallback (unavailable)\n%s", res.code, res.stderr)
	}
}

// TestEachBatchTaskKeepsItsOwnBreakerSettings is a regression test: the
// first task of a batch to call an endpoint set its breaker's threshold
// for the whole batch, and a later task's breaker: key did nothing. The
// breaker's state is the endpoint's (the failures in a row go on across
// tasks); each task's threshold applies to its own calls: the first
// task's four failures stay under its 50, the second's first failure
// passes its own 1 and opens the breaker, and it pauses unavailable.
func TestEachBatchTaskKeepsItsOwnBreakerSettings(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml":     "down: {after: 0, for: 1h}\nturns: [{text: never}]\n",
		"tasks.yaml": "- name: one\n  task: Write out.txt.\n- name: two\n  task: Write out.txt.\n  breaker: {failures: 1, cool: 1h}\n",
	})
	res := runCLI(t, "batch", "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--no-judge",
		"--tasks", filepath.Join(dir, "tasks.yaml"), "--work", filepath.Join(dir, "work"), "--state-dir", filepath.Join(dir, "state"),
		"--retry-budget", "500ms", "--backoff", "1ms", "--breaker-failures", "50", "--parallel", "1")
	if !strings.Contains(res.stderr, "[batch · 1/2 one api-failure") || !strings.Contains(res.stdout, "two (unavailable)") {
		t.Fatalf("exit %d, want task one api-failure (its 50 not reached) and task two paused unavailable (its 1 passed)\n%s\n%s",
			res.code, res.stdout, res.stderr)
	}
}
