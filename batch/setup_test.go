package batch_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/anthropic"
	"github.com/nightshift-dev/nightshift/llm/openai"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/taskfile"
)

var epoch = time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)

// fourCalls is a task of four model calls: three tool calls and the final
// answer, which the check exists:notes.md passes.
const fourCalls = `
turns:
  - tool_calls: [{name: write_file, input: {path: notes.md, content: "# Notes\nall three steps done\n"}}]
  - tool_calls: [{name: read_file, input: {path: notes.md}}]
  - tool_calls: [{name: list_dir, input: {path: .}}]
  - text: "Wrote notes.md with the three steps."
`

// callsPerTask is how many model calls a fourCalls task makes.
const callsPerTask = 4

// sim is the HTTP simulator behind a rate limit.
type sim struct {
	url string
	rl  *scripted.RateLimiter
}

// newSim serves the four-call scenario on loopback behind the rate limit
// rl describes (its Limit must be set).
func newSim(tb testing.TB, rl scripted.RateLimitConfig, clk clock.Clock) *sim {
	tb.Helper()
	sc, err := scripted.Parse([]byte(fourCalls))
	if err != nil {
		tb.Fatal(err)
	}
	rl.Clock = clk
	h := scripted.RateLimit(scripted.NewServer(sc, scripted.ServerConfig{Clock: clk}), rl)
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return &sim{url: srv.URL, rl: h}
}

// provider returns a real provider client of the named wire format
// pointed at the simulator.
func (s *sim) provider(tb testing.TB, wire string) llm.Model {
	tb.Helper()
	var (
		m   llm.Model
		err error
	)
	switch wire {
	case "anthropic":
		m, err = anthropic.New(anthropic.Config{APIKey: "sk-test", BaseURL: s.url, Model: "sim"})
	default:
		m, err = openai.New(openai.Config{APIKey: "sk-test", BaseURL: s.url + "/v1", Model: "sim"})
	}
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// tasks returns n four-call tasks checked by exists:notes.md.
func tasks(n int) []*taskfile.Spec {
	specs := make([]*taskfile.Spec, n)
	for i := range specs {
		specs[i] = &taskfile.Spec{Name: "notes " + string(rune('a'+i%26)), Task: "Write notes.md with the three steps.", BaseDir: ".", Spec: runspec.Spec{Verify: runspec.Verify{Checks: []string{"exists:notes.md"}, NoJudge: true}}}
	}
	return specs
}
