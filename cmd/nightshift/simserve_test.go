package main

import (
	"bufio"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestSimServe starts `nightshift sim serve` as a real process, reads
// its first stdout line — exactly its base URL — points `nightshift run`
// at it with the Anthropic provider, and stops it with SIGINT (exit 0).
func TestSimServe(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": `
turns:
  - attempts:
      - status: 429
        headers: {retry-after-ms: "3"}
      - tool_calls: [{name: list_dir, input: {path: .}}]
  - text: "Listed over HTTP."
`})
	c := startChild(t, dir, "sim", "serve", "--scenario", "s.yaml", "--addr", "127.0.0.1:0")
	first, err := bufio.NewReader(c.stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no first line on stdout: %v", err)
	}
	url := strings.TrimSuffix(first, "\n")
	if !regexp.MustCompile(`^http://127\.0\.0\.1:[1-9][0-9]*$`).MatchString(url) {
		t.Fatalf("the first stdout line is %q, want exactly the base URL", first)
	}

	t.Run("a run against its URL retries the 429 and ends done", func(t *testing.T) {
		work := filepath.Join(dir, "work")
		writeFiles(t, work, map[string]string{"a.txt": "a\n"})
		res := runCLIEnv(t, []string{"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL=" + url},
			"run", "--dir", work, "--no-judge", "--backoff", "1ms", "List the folder")
		if res.code != 0 || res.stdout != "Listed over HTTP.\n" {
			t.Fatalf("exit %d, stdout %q, want 0 and the answer\n%s", res.code, res.stdout, res.stderr)
		}
		if !strings.Contains(res.stderr, "[retry · status=429 attempt=1 wait=3ms retry-after=3ms]") {
			t.Errorf("stderr lacks the retry line:\n%s", res.stderr)
		}
	})

	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code, stderr := c.wait(t); code != 0 {
		t.Errorf("sim serve exited %d after SIGINT, want 0\n%s", code, stderr)
	}
}
