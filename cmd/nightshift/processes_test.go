package main

import (
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// TestSeveralProcessesShareARateLimit starts several `nightshift run`
// processes at once against one rate-limited simulator. Each has its own
// limiter (they are separate processes), so they collide; a 429 with a
// Retry-After is waited out within the retry budget rather than counted
// against --retries (here 0), and the jitter spreads the retries, so every
// process finishes (issue 5, point 2).
func TestSeveralProcessesShareARateLimit(t *testing.T) {
	const procs, limit, per = 6, 3, 300 * time.Millisecond
	sc, err := scripted.Parse([]byte(`
turns:
  - tool_calls: [{name: write_file, input: {path: out.txt, content: "x"}}]
  - text: wrote out.txt
`))
	if err != nil {
		t.Fatal(err)
	}
	rl := scripted.RateLimit(scripted.NewServer(sc, scripted.ServerConfig{}), scripted.RateLimitConfig{Limit: limit, Per: per})
	srv := httptest.NewServer(rl)
	defer srv.Close()

	dir := t.TempDir()
	children := make([]*child, procs)
	for i := range children {
		work := filepath.Join(dir, fmt.Sprint(i))
		writeFiles(t, work, map[string]string{"README.md": "x"})
		children[i] = startChild(t, work, "run", "--provider", "openai", "--base-url", srv.URL,
			"--retries", "0", "--backoff", "10ms", "--retry-budget", "1m", "--no-judge", "--check", "exists:out.txt",
			fmt.Sprintf("task %d: write out.txt", i))
	}
	for i, c := range children {
		code, stderr := c.wait(t)
		if code != 0 {
			t.Errorf("process %d exited %d:\n%s", i, code, stderr)
		}
	}
	st := rl.Stats()
	if st.Accepted != 2*procs {
		t.Errorf("accepted %d calls, want %d (two per process)", st.Accepted, 2*procs)
	}
	if st.Limited == 0 {
		t.Errorf("no call was answered 429: the processes did not collide, so the test shows nothing")
	}
	t.Logf("%d processes: %d calls accepted, %d answered 429", procs, st.Accepted, st.Limited)
}
