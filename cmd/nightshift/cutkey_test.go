package main

import (
	"io/fs"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/redact"
	"github.com/nightshift-dev/nightshift/statedir"
)

// longKey is 108 characters long, as the key of issue 25's attack.
const longKey = "sk-ant-api03-" + "Zq9xW3vB7nK2Zq9xW3vB7nK2Zq9xW3vB7nK2Zq9xW3vB7nK2Zq9xW3vB7nK2Zq9xW3vB7nK2Zq9xW3vB7nK2" + "Pm4Lr8Ty1Hs6Dc0Jf5Wa7Ek3"

// cutScenario puts the key where nightshift cuts a text before the
// redactor sees it: in a command's input where the event's line (80
// characters) and its input field, the audit log's summary (200) end;
// across the start of a command's output tail (the last 16 KiB); in the
// first line of an error result (160); and in a provider's error body
// where its message is cut (500 bytes).
var cutScenario = `
turns:
  - tool_calls:
      - {name: run_command, input: {command: "echo ` + strings.Repeat("a", 50) + longKey + ` > /dev/null"}}
  - tool_calls:
      - {name: run_command, input: {command: "true ` + strings.Repeat("b", 150) + longKey + `; head -c 20000 /dev/zero | tr '\\0' x; printf %s ` + longKey + `; head -c 16334 /dev/zero | tr '\\0' y"}}
  - tool_calls:
      - {name: read_file, input: {path: "` + strings.Repeat("c", 120) + longKey + `"}}
  - status: 400
    error: {message: "` + strings.Repeat("d", 460) + ` invalid x-api-key ` + longKey + `"}
`

// Regression (issue 25): the key was cut to 200 characters before it was
// redacted, and 103 of its 108 characters landed in the events, the run
// record and the audit log. Wherever nightshift cuts a text, fewer than
// redact.MinLen characters of the key are left, in everything it writes
// and in what the model reads.
func TestALongKeyCutShortIsMaskedEverywhere(t *testing.T) {
	sc, err := scripted.Parse([]byte(cutScenario))
	if err != nil {
		t.Fatal(err)
	}
	sim := scripted.NewServer(sc, scripted.ServerConfig{})
	srv := httptest.NewServer(sim)
	defer srv.Close()
	work, state := t.TempDir(), t.TempDir()
	events := filepath.Join(t.TempDir(), "ev.jsonl")
	res := runChildEnv(t, []string{"ANTHROPIC_API_KEY=" + longKey, statedir.Env + "=" + state},
		"run", "--dir", work, "--base-url", srv.URL, "--backoff", "1ms", "--sandbox", "none",
		"--approve", "run_command=allow", "--events", events, "Do the work")
	if res.code != 5 {
		t.Fatalf("exit %d, want 5 (the scripted 400)\n%s", res.code, res.stderr)
	}
	where := map[string]string{"stdout": res.stdout, "stderr": res.stderr, "--events": readFile(t, events)}
	err = filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		where[p] = readFile(t, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// What the model read: the tool results of every request (its own
	// calls, which it sends back, hold the key as it wrote them).
	for i, req := range sim.Requests() {
		for _, m := range req.Messages {
			for _, b := range m.Content {
				if b.Type == llm.ToolResultBlock {
					where["a tool result the model read, request "+string(rune('0'+i))] += b.Text + "\n"
				}
			}
		}
	}
	results := ""
	for name, text := range where {
		if strings.HasPrefix(name, "a tool result") {
			results += text
		}
	}
	for _, want := range []string{"x-api-key", "no such file"} {
		if !strings.Contains(where["--events"], want) {
			t.Fatalf("the events hold no %q: the test looked at less than it should:\n%s", want, where["--events"])
		}
	}
	if !strings.Contains(results, "output truncated") {
		t.Fatalf("no tool result was cut: the test looked at less than it should:\n%.2000s", results)
	}
	audit := false
	for name, text := range where {
		audit = audit || strings.HasSuffix(name, statedir.AuditName)
		if n := longestKeyPart(text); n >= redact.MinLen {
			t.Errorf("%s holds %d characters of the key:\n%s", name, n, text)
		}
	}
	if !audit {
		t.Error("no audit log: the test looked at less than it should")
	}
}

// longestKeyPart returns the length of the longest part of longKey in s.
func longestKeyPart(s string) int {
	best := 0
	for i := range longKey {
		for j := len(longKey); j > i+best; j-- {
			if strings.Contains(s, longKey[i:j]) {
				best = j - i
				break
			}
		}
	}
	return best
}
