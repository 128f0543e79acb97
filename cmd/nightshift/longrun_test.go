package main

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// TestAFallbackThatIsTheWorkerIsAUsageError is a regression test:
// --fallback-model naming the worker's own model at the worker's own
// endpoint was accepted, and every call the worker could not answer was
// made again where it had just failed. It is a usage error (exit 2)
// naming the flag, and nothing runs.
func TestAFallbackThatIsTheWorkerIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": "turns: [{text: done}]\n", "work/a.txt": "a\n"})
	for _, fb := range []string{"scripted", "scripted:scripted"} {
		res := runCLI(t, "run", "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--no-judge",
			"--dir", filepath.Join(dir, "work"), "--fallback-model", fb, "say done")
		if res.code != 2 || !strings.Contains(res.stderr, "--fallback-model "+fb+" is the worker's own model") {
			t.Errorf("--fallback-model %s: exit %d, stderr %q; want 2 and the worker's own model", fb, res.code, res.stderr)
		}
		if strings.Contains(res.stderr, "[start") {
			t.Errorf("--fallback-model %s: the run started:\n%s", fb, res.stderr)
		}
	}
	// Another model on the same provider is a fallback.
	res := runCLI(t, "run", "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--no-judge",
		"--dir", filepath.Join(dir, "work"), "--fallback-model", "scripted:small", "say done")
	if res.code != 0 || !strings.Contains(res.stderr, "fallback=small") {
		t.Errorf("--fallback-model scripted:small: exit %d, stderr %q", res.code, res.stderr)
	}
}

// TestAFallbackOnAnotherProviderWithoutAKeySaysWhichVariable is a
// regression test: a fallback (or judge) on another provider than the
// worker's, with no key, was told "--provider openai needs
// OPENAI_API_KEY, or --base-url for an OpenAI-compatible server"; but
// --base-url is the worker's, and giving it would move the worker. The
// message names the provider's own *_BASE_URL, and nothing runs.
func TestAFallbackOnAnotherProviderWithoutAKeySaysWhichVariable(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": "turns: [{text: done}]\n", "work/a.txt": "a\n"})
	for _, tc := range []struct{ flag, model, want string }{
		{"--fallback-model", "openai:gpt-6-luna", "OPENAI_BASE_URL"},
		{"--fallback-model", "anthropic:claude-haiku-4-5", "ANTHROPIC_BASE_URL"},
		{"--judge-model", "openai:gpt-6-luna", "OPENAI_BASE_URL"},
	} {
		res := runCLI(t, "run", "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"),
			"--dir", filepath.Join(dir, "work"), tc.flag, tc.model, "say done")
		if res.code != 2 || !strings.Contains(res.stderr, tc.flag+" "+tc.model+": ") || !strings.Contains(res.stderr, tc.want) ||
			strings.Contains(res.stderr, "or --base-url") {
			t.Errorf("%s %s: exit %d, stderr %q; want 2, naming %s and not --base-url", tc.flag, tc.model, res.code, res.stderr, tc.want)
		}
	}
}

// TestABatchsPrimaryRestsForEveryTask is a regression test: each task of
// a batch made its own fallback rest, so the primary that had just run
// out of retries on an overload was called again, through all its
// retries, by the next task. A batch's tasks share the primary's rest:
// after the first task falls back, the second goes to the fallback at
// once (one fallback event, one retry, in all).
func TestABatchsPrimaryRestsForEveryTask(t *testing.T) {
	dir := batchFixture(t, "- {name: one, task: Write notes.md}\n- {name: two, task: Write notes.md}\n")
	writeFiles(t, dir, map[string]string{"s.yaml": "{loop: true, turns: [{status: 529}]}\n"})
	sc, err := scripted.Parse([]byte(batchScenario))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(scripted.NewServer(sc, scripted.ServerConfig{}))
	defer hs.Close()
	t.Setenv("ANTHROPIC_BASE_URL", hs.URL)
	t.Setenv("ANTHROPIC_API_KEY", "test-key-for-the-simulator")
	code, stdout, stderr := runBatchCmd(t, dir, "--tasks", "tasks.yaml", "--work", "work", "--provider", "scripted", "--scenario", "s.yaml",
		"--no-judge", "--parallel", "1", "--retries", "1", "--backoff", "1ms", "--fallback-model", "anthropic:claude-haiku-4-5")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var logs string
	for _, name := range []string{"001-one.log", "002-two.log"} {
		logs += readFile(t, filepath.Join(dir, "work", name))
	}
	if n := strings.Count(logs, "[fallback ·"); n != 1 {
		t.Errorf("%d fallback events, want 1:\n%s", n, logs)
	}
	if n := strings.Count(logs, "[retry ·"); n != 1 {
		t.Errorf("%d retries of the primary, want 1 (the second task's calls go to the fallback while it rests):\n%s", n, logs)
	}
	// Regression: a batch task's start line dropped the fallback's
	// fields (a task without a judge started with none at all).
	if n := strings.Count(logs, "fallback=claude-haiku-4-5 fallback_endpoint="+hs.URL); n != 2 {
		t.Errorf("%d start lines name the fallback, want 2:\n%s", n, logs)
	}
}

// TestRunsLongRunFlagsGivenToNightNameThePipelineKey is a regression
// test: `nightshift night --no-cache` (or --fallback-model, --fallback-on,
// --context-window, as run takes them) said only "unknown flag"; it says
// which pipeline key holds the setting instead.
func TestRunsLongRunFlagsGivenToNightNameThePipelineKey(t *testing.T) {
	for flag, want := range map[string]string{
		"--no-cache": "no_cache: true", "--fallback-model=x": "roles.<role>.fallback", "--fallback-on=quota": "roles.<role>.fallback_on",
		"--context-window=8000": "models_file",
	} {
		res := runCLI(t, "night", "--pipeline", "p.yaml", flag)
		if res.code != 2 || !strings.Contains(res.stderr, want) || !strings.Contains(res.stderr, "pipeline file") {
			t.Errorf("night %s: exit %d, stderr %q; want 2 and %q", flag, res.code, res.stderr, want)
		}
	}
	if res := runCLI(t, "night", "--no-such-flag"); res.code != 2 || !strings.Contains(res.stderr, "unknown flag: --no-such-flag") {
		t.Errorf("night --no-such-flag: exit %d, stderr %q", res.code, res.stderr)
	}
}

// TestABlankJudgeOrFallbackModelIsAUsageError is a regression test:
// --fallback-model " " and --judge-model " " were taken as models named
// " ", sent as they were. Such a name is a usage error naming the flag.
func TestABlankJudgeOrFallbackModelIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": "turns: [{text: done}]\n", "work/a.txt": "a\n"})
	for _, flag := range []string{"--fallback-model", "--judge-model"} {
		for _, name := range []string{" ", " gpt-6-luna"} {
			res := runCLI(t, "run", "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"),
				"--dir", filepath.Join(dir, "work"), flag, name, "say done")
			if res.code != 2 || !strings.Contains(res.stderr, flag) || strings.Contains(res.stderr, "[start") {
				t.Errorf("%s %q: exit %d, stderr %q; want 2 naming the flag, and no run", flag, name, res.code, res.stderr)
			}
		}
	}
}

// TestNIGHTSHIFT_MODELIsNotAFallbackOnAnotherProvider is a regression
// test: with NIGHTSHIFT_MODEL=claude-sonnet-5-5, --fallback-model openai:
// (that provider's default) named claude-sonnet-5-5 on the OpenAI
// endpoint. The variable names the worker's model only.
func TestNIGHTSHIFT_MODELIsNotAFallbackOnAnotherProvider(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": "turns: [{text: done}]\n", "work/a.txt": "a\n"})
	res := runCLIEnv(t, []string{"NIGHTSHIFT_MODEL=claude-sonnet-5-5", "OPENAI_API_KEY=test", "OPENAI_BASE_URL=http://127.0.0.1:9"},
		"run", "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--no-judge",
		"--dir", filepath.Join(dir, "work"), "--fallback-model", "openai:", "say done")
	if res.code != 0 || !strings.Contains(res.stderr, "fallback=gpt-6-sol ") {
		t.Errorf("exit %d, stderr %q; want the OpenAI default (gpt-6-sol) as the fallback", res.code, res.stderr)
	}
}
