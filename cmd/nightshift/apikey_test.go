package main

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// TestAPIKeyNeverAppears points the real providers, with a key in the
// environment, at a wire-format server that refuses them (a 401 and a
// 400 whose messages even quote the key back, as real APIs sometimes do)
// and looks for the key in everything the run left behind.
func TestAPIKeyNeverAppears(t *testing.T) {
	const (
		anthropicKey = "sk-ant-TESTKEY-do-not-print"
		openaiKey    = "sk-TESTKEY-openai-do-not-print"
	)
	cases := []struct {
		name, provider, keyVar, key, status string
		stream                              bool
	}{
		{"an anthropic 401 that quotes the key", "anthropic", "ANTHROPIC_API_KEY", anthropicKey, "401", false},
		{"an anthropic 400 that quotes the key, streamed", "anthropic", "ANTHROPIC_API_KEY", anthropicKey, "400", true},
		{"an openai 401 that quotes the key", "openai", "OPENAI_API_KEY", openaiKey, "401", false},
		{"an openai 400 that quotes the key, streamed", "openai", "OPENAI_API_KEY", openaiKey, "400", true},
	}
	for _, tc := range cases {
		t.Run(tc.name+" leaves the key in no output, event, record or error", func(t *testing.T) {
			sc, err := scripted.Parse([]byte(`
turns:
  - status: ` + tc.status + `
    error: {message: "invalid x-api-key: ` + tc.key + `"}
`))
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var sent []string
			sim := scripted.NewServer(sc, scripted.ServerConfig{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				sent = append(sent, r.Header.Get("X-Api-Key")+" "+r.Header.Get("Authorization"))
				mu.Unlock()
				sim.ServeHTTP(w, r)
			}))
			defer srv.Close()

			dir := t.TempDir()
			work := filepath.Join(dir, "work")
			writeFiles(t, work, map[string]string{"README.md": "hello\n"})
			events := filepath.Join(dir, "events.jsonl")
			args := []string{"run", "--dir", work, "--provider", tc.provider, "--base-url", srv.URL,
				"--model", "m", "--backoff", "1ms", "--events", events}
			if tc.stream {
				args = append(args, "--stream")
			}
			res := runCLIEnv(t, []string{tc.keyVar + "=" + tc.key}, append(args, "Summarise README.md")...)

			if res.code != 5 {
				t.Fatalf("exit %d, want 5 (api-failure)\nstderr:\n%s", res.code, res.stderr)
			}
			mu.Lock()
			gotKey := strings.Contains(strings.Join(sent, "\n"), tc.key)
			mu.Unlock()
			if !gotKey {
				t.Fatalf("the server never received the key, so this test shows nothing; headers: %q", sent)
			}
			places := map[string]string{"stdout": res.stdout, "stderr": res.stderr, "events": readFile(t, events)}
			err = filepath.WalkDir(stateOf(t, work), func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				data, err := os.ReadFile(p)
				places[p] = string(data)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(places) < 4 {
				t.Fatalf("the run left no record in its state folder: %v", places)
			}
			for where, text := range places {
				if strings.Contains(text, tc.key) {
					t.Errorf("the key appears in %s:\n%s", where, text)
				}
			}
			// The server's message still reaches the person, without the key.
			if !strings.Contains(res.stderr, tc.status) || !strings.Contains(res.stderr, "invalid x-api-key") {
				t.Errorf("stderr does not say what failed:\n%s", res.stderr)
			}
		})
	}
}

// TestRunCommandDoesNotHandTheKeyToTheModel: `env` run by run_command
// (allowed by the flag) shows the model no variable holding the key.
func TestRunCommandDoesNotHandTheKeyToTheModel(t *testing.T) {
	const key = "sk-ant-TESTKEY-env-do-not-print"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": `
turns:
  - tool_calls: [{name: run_command, input: {command: env}}]
  - cases:
      - when: {in: last, contains: "` + key + `"}
        text: "LEAKED"
      - when: {in: last, contains: "PATH="}
        text: "The environment holds no key."
      - text: "The command's output never came back."
`})
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	res := runCLIEnv(t, []string{"ANTHROPIC_API_KEY=" + key},
		"run", "--dir", work, "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"),
		"--no-judge", "--approve", "run_command=allow", "Show the environment")
	if res.code != 0 || res.stdout != "The environment holds no key.\n" {
		t.Fatalf("exit %d, stdout %q; want 0 and no key seen\n%s", res.code, res.stdout, res.stderr)
	}
}
