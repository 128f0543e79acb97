package main

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// installScenario: a worker that thinks aloud, reads a file, writes 3 of
// 5 steps and claims it is done; a judge that decides from what it is
// shown. The marked strings must never reach the judge.
const installScenario = `
scripts:
  - name: judge
    when: {in: system, contains: "strict verifier"}
    turns:
      - cases:
          - when: {contains: "5. tinytool --version"}
            text: "PASS\nall five steps are there."
          - text: "FAIL: only 3 of the 5 steps"
  - name: worker
    turns:
      - text: "INTERMEDIATE-THOUGHT-42: let me read the README first."
        tool_calls: [{name: read_file, input: {path: README.md}}]
      - tool_calls:
          - {name: write_file, input: {path: docs/install.md, content: "1. clone\n2. cd\n3. make\n"}}
      - text: "Done."
      - tool_calls:
          - name: write_file
            input: {path: docs/install.md, content: "1. clone\n2. cd\n3. make\n4. sudo make install\n5. tinytool --version\n"}
      - text: "Done, all five steps."
`

// TestProvidersThroughTheCLI runs `nightshift run` with each real
// provider, streaming and not, against the HTTP simulator speaking that
// provider's wire format, to a done run with a judge; then reads the
// judge's requests as the server received them and finds none of the
// worker's history in them.
func TestProvidersThroughTheCLI(t *testing.T) {
	for _, provider := range []string{"anthropic", "openai"} {
		for _, stream := range []bool{false, true} {
			name := provider
			if stream {
				name += " streamed"
			}
			t.Run(name+" ends done and its judge sees only the task, the answer and the files", func(t *testing.T) {
				sc, err := scripted.Parse([]byte(installScenario))
				if err != nil {
					t.Fatal(err)
				}
				sim := scripted.NewServer(sc, scripted.ServerConfig{})
				srv := httptest.NewServer(sim)
				defer srv.Close()

				work := t.TempDir()
				writeFiles(t, work, map[string]string{"README.md": "README-MARKER-7f3a: clone, cd, make, make install, check the version.\n"})
				const task = "Extract the 5 install steps from README.md into docs/install.md"
				args := []string{"run", "--dir", work, "--provider", provider, "--base-url", srv.URL,
					"--model", "worker-x", "--judge-model", "judge-x", "--backoff", "1ms"}
				if stream {
					args = append(args, "--stream")
				}
				res := runCLIEnv(t, []string{strings.ToUpper(provider) + "_API_KEY=test"}, append(args, task)...)
				if res.code != 0 {
					t.Fatalf("exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
				}
				if res.stdout != "Done, all five steps.\n" {
					t.Errorf("stdout = %q, want only the final answer", res.stdout)
				}
				for _, line := range []string{"[verify · FAIL: only 3 of the 5 steps]", "[verify · PASS]", "[outcome · done steps=5 "} {
					if !strings.Contains(res.stderr, line) {
						t.Errorf("stderr lacks %q:\n%s", line, res.stderr)
					}
				}

				var judged []llm.Request
				for _, req := range sim.Requests() {
					if strings.Contains(req.System, "strict verifier") {
						judged = append(judged, req)
					} else if req.Model != "worker-x" {
						t.Errorf("a worker request names model %q, want worker-x", req.Model)
					}
				}
				if len(judged) != 2 {
					t.Fatalf("the judge was asked %d times, want 2 (a FAIL, then a PASS)", len(judged))
				}
				answers := []string{"Done.", "Done, all five steps."}
				files := []string{"3. make", "5. tinytool --version"}
				for i, req := range judged {
					checkIsolated(t, req, task, answers[i], files[i])
				}
				if got := readFile(t, filepath.Join(work, "docs", "install.md")); !strings.Contains(got, "5. tinytool") {
					t.Errorf("docs/install.md = %q, want the five steps kept", got)
				}
			})
		}
	}
}

// checkIsolated fails the test unless req, one judge call, holds exactly
// one user message of text with the task, the answer and the file, and
// nothing of the worker's history.
func checkIsolated(t *testing.T, req llm.Request, task, answer, file string) {
	t.Helper()
	if req.Model != "judge-x" {
		t.Errorf("the judge's request names model %q, want judge-x (--judge-model)", req.Model)
	}
	if len(req.Tools) != 0 {
		t.Errorf("the judge was offered %d tools, want none", len(req.Tools))
	}
	if len(req.Messages) != 1 || req.Messages[0].Role != llm.User {
		t.Fatalf("the judge got %d messages, want one user message: %+v", len(req.Messages), req.Messages)
	}
	for _, b := range req.Messages[0].Content {
		if b.Type != llm.TextBlock {
			t.Errorf("the judge's message holds a %s block, want text only", b.Type)
		}
	}
	shown := req.System + "\n" + req.Messages[0].Text()
	for _, want := range []string{task, answer, file} {
		if !strings.Contains(shown, want) {
			t.Errorf("the judge was not shown %q", want)
		}
	}
	for _, history := range []string{"INTERMEDIATE-THOUGHT-42", "README-MARKER-7f3a", "toolu_", "[verifier]", "only 3 of the 5"} {
		if strings.Contains(shown, history) {
			t.Errorf("the judge was shown the worker's history (%q):\n%s", history, shown)
		}
	}
}
