package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// TestSeveralProcessesShareARateLimit starts several `nightshift run`
// processes at once against one rate-limited simulator. Each has its own
// state directory, and so its own limiter, so they collide; a 429 with a
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
		own := []string{"NIGHTSHIFT_STATE_DIR=" + filepath.Join(dir, fmt.Sprint("state", i))}
		children[i] = startChildEnv(t, work, own, "run", "--provider", "openai", "--base-url", srv.URL,
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

// TestTwentyProcessesShareOneLimiter is issue 13's acceptance: twenty
// separate `nightshift run` processes (this test binary re-executed), each
// needing four model calls, started together against a rate-limited
// simulator with one key and one state directory. Every process finishes
// done, every call it needed was accepted, and they all paced through one
// limiter file: it counts every process's calls, none is left in flight,
// and neither the key nor the endpoint is in it. How fast and with how
// few 429s is BenchmarkProcessesPacing's to say.
func TestTwentyProcessesShareOneLimiter(t *testing.T) {
	const (
		procs  = 20
		calls  = 4 * procs
		secret = "sk-twenty-processes-secret-0123"
	)
	sc, err := scripted.Parse([]byte(fourCallScenario))
	if err != nil {
		t.Fatal(err)
	}
	rl := scripted.RateLimit(scripted.NewServer(sc, scripted.ServerConfig{ForgetRequests: true}),
		scripted.RateLimitConfig{Limit: 10, Per: 500 * time.Millisecond})
	srv := httptest.NewServer(rl)
	defer srv.Close()

	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	env := []string{"NIGHTSHIFT_STATE_DIR=" + state, "OPENAI_API_KEY=" + secret}
	children := make([]*child, procs)
	for i := range children {
		work := filepath.Join(dir, fmt.Sprint(i))
		writeFiles(t, work, map[string]string{"README.md": "x"})
		children[i] = startChildEnv(t, work, env, "run", "--provider", "openai", "--base-url", srv.URL,
			"--no-judge", "--check", "exists:notes.md", fmt.Sprintf("task %d: write notes.md", i))
	}
	for i, c := range children {
		if code, stderr := c.wait(t); code != 0 {
			t.Errorf("process %d exited %d:\n%s", i, code, stderr)
		}
	}
	if st := rl.Stats(); st.Accepted != calls {
		t.Errorf("the server accepted %d calls, want %d: four per process (%+v)", st.Accepted, calls, st)
	}

	limits := filepath.Join(state, "limits")
	all, err := os.ReadDir(limits)
	if err != nil {
		t.Fatal(err)
	}
	// Beside it lies the endpoint's circuit breaker's file (package
	// breaker), which must not hold the key or the endpoint either.
	var ents []os.DirEntry
	for _, e := range all {
		if strings.HasPrefix(e.Name(), "breaker-") {
			raw, err := os.ReadFile(filepath.Join(limits, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{secret, srv.URL, strings.TrimPrefix(srv.URL, "http://")} {
				if strings.Contains(string(raw), s) || strings.Contains(e.Name(), s) {
					t.Errorf("the breaker file or its name holds %q:\n%s", s, raw)
				}
			}
			continue
		}
		ents = append(ents, e)
	}
	if len(ents) != 1 {
		t.Fatalf("limits/ holds %d limiter files, want the one shared by every process", len(ents))
	}
	raw, err := os.ReadFile(filepath.Join(limits, ents[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{secret, srv.URL, strings.TrimPrefix(srv.URL, "http://")} {
		if strings.Contains(string(raw), s) || strings.Contains(ents[0].Name(), s) {
			t.Errorf("the limiter file or its name holds %q:\n%s", s, raw)
		}
	}
	var shared struct {
		Calls    int            `json:"calls"`
		InFlight map[string]any `json:"in_flight"`
	}
	if err := json.Unmarshal(raw, &shared); err != nil {
		t.Fatalf("the limiter file is not JSON: %v\n%s", err, raw)
	}
	if shared.Calls != calls {
		t.Errorf("the shared file counts %d calls, want all %d processes' %d", shared.Calls, procs, calls)
	}
	if len(shared.InFlight) != 0 {
		t.Errorf("calls left in flight after every process ended: %v", shared.InFlight)
	}
	t.Logf("%d processes: %+v", procs, rl.Stats())
}
