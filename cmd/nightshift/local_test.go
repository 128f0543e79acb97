package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// simLocal serves a scenario over HTTP in the test's process; the run
// reaches it as an OpenAI-compatible server.
func simLocal(t *testing.T, yaml string) string {
	t.Helper()
	sc, err := scripted.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(scripted.NewServer(sc, scripted.ServerConfig{}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// readFour reads note1 to note4 (about 110 tokens each), then is done.
const readFour = `server: {window: 512, tools: ignored, model: gemma}
loop: true
scripts:
  - name: summary
    when: {in: last, contains: "Reply with the summary only"}
    turns: [{text: "Read note1 and note2."}]
  - name: worker
    turns:
      - cases:
          - when: {in: last, contains: "note4:"}
            text: "Read the four notes."
          - when: {in: last, contains: "note3:"}
            tool_calls: [{name: read_file, input: {path: note4.txt}}]
          - when: {in: last, contains: "note2:"}
            tool_calls: [{name: read_file, input: {path: note3.txt}}]
          - when: {in: last, contains: "note1:"}
            tool_calls: [{name: read_file, input: {path: note2.txt}}]
          - tool_calls: [{name: read_file, input: {path: note1.txt}}]
`

func fourNotes(t *testing.T) string {
	t.Helper()
	work := t.TempDir()
	for i := 1; i <= 4; i++ {
		writeFiles(t, work, map[string]string{fmt.Sprintf("note%d.txt", i): fmt.Sprintf("note%d: ", i) + strings.Repeat("the tide comes in and goes out ", 14)})
	}
	return work
}

// TestARunOnALocalServer: `nightshift run` against a llama.cpp server
// started with -c 512 whose chat template ignores tools, plain and
// streaming: the window is learnt from the server and said on the start
// line, the template is named once, the history is compacted and the run
// ends done (issue 28: exit 5 after 9 turns, 0 compactions).
func TestARunOnALocalServer(t *testing.T) {
	for _, stream := range []string{"--stream=false", "--stream"} {
		t.Run(stream, func(t *testing.T) {
			url := simLocal(t, readFour)
			work := fourNotes(t)
			res := runCLI(t, "run", "--provider", "openai", "--base-url", url, "--model", "gemma", stream,
				"--dir", work, "--no-judge", "Read note1.txt to note4.txt.")
			if res.code != 0 || res.stdout != "Read the four notes.\n" {
				t.Fatalf("exit %d stdout %q\n%s", res.code, res.stdout, res.stderr)
			}
			if !regexp.MustCompile(`\[start · run=\S+ model=gemma max_steps=20 .*window=512 \(server\)\]`).MatchString(res.stderr) {
				t.Errorf("the start line does not say window=512 (server):\n%s", res.stderr)
			}
			if n := strings.Count(res.stderr, "does not support tools"); n != 1 {
				t.Errorf("the template that ignores tools named %d times, want once:\n%s", n, res.stderr)
			}
			if !strings.Contains(res.stderr, "[compact · ") {
				t.Errorf("no compaction:\n%s", res.stderr)
			}
		})
	}
	t.Run("--context-window still wins", func(t *testing.T) {
		url := simLocal(t, readFour)
		res := runCLI(t, "run", "--provider", "openai", "--base-url", url, "--model", "gemma", "--context-window", "400",
			"--dir", fourNotes(t), "--no-judge", "Read note1.txt to note4.txt.")
		if res.code != 0 || !strings.Contains(res.stderr, "window=400 (given)") || strings.Contains(res.stderr, "(server)") {
			t.Errorf("exit %d\n%s", res.code, res.stderr)
		}
	})
}

// TestAFullWindowEndsContextFull: a window the prompt fills, with nothing
// to drop, ends the run context-full, exit 13, naming the window (issue
// 28: truncated, exit 6, "cut off by max_tokens 3 times in a row").
func TestAFullWindowEndsContextFull(t *testing.T) {
	url := simLocal(t, "server: {window: 512, tools: ignored}\nturns: [{text: \""+strings.Repeat("The tide comes in. ", 200)+"\"}]")
	res := runCLI(t, "run", "--provider", "openai", "--base-url", url, "--model", "qwen", "--dir", t.TempDir(), "--no-judge",
		"Tell me about the tide. "+strings.Repeat("Be thorough. ", 80))
	if res.code != 13 {
		t.Fatalf("exit %d, want 13\n%s", res.code, res.stderr)
	}
	for _, want := range []string{"nightshift: context-full after 1 step (exit 13)", "the context window of 512 tokens is full"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	if strings.Contains(res.stderr, "cut off by max_tokens") {
		t.Errorf("the window is named as max_tokens:\n%s", res.stderr)
	}
}

// TestEveryOutcomeIsInTheTables: each outcome has its exit status and its
// row where outcomes are listed: the README's table, the outcome event's
// values in docs/events.md, the run's --help.
func TestEveryOutcomeIsInTheTables(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	events, err := os.ReadFile(filepath.Join("..", "..", "docs", "events.md"))
	if err != nil {
		t.Fatal(err)
	}
	var outcomeRow string
	for _, line := range strings.Split(string(events), "\n") {
		if strings.HasPrefix(line, "| `outcome` | string |") {
			outcomeRow = line
		}
	}
	help := runCLI(t, "run", "--help").stdout
	for _, o := range agent.Outcomes() {
		code, ok := exitCodes[o]
		if !ok {
			t.Errorf("%s has no exit status", o)
			continue
		}
		if o != agent.Parked && !strings.Contains(string(readme), fmt.Sprintf("| %s | %d |", o, code)) {
			t.Errorf("README.md has no row | %s | %d |", o, code)
		}
		switch o {
		case agent.Usage, agent.NeedsRecovery, agent.NotAllDone, agent.Busy:
			// Said before a run starts, or of many runs: no outcome event.
		default:
			if !strings.Contains(outcomeRow, "`"+string(o)+"`") {
				t.Errorf("docs/events.md's outcome field does not list %s: %s", o, outcomeRow)
			}
		}
		if o != agent.Parked && o != agent.NotAllDone && !strings.Contains(help, fmt.Sprintf("%d %s", code, o)) && o != agent.Failed {
			t.Errorf("run --help does not say %d %s", code, o)
		}
	}
}
