package agent_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/llm/openai"
)

// replayed answers each chat completion with the next of the recorded
// llama.cpp responses named (llm/openai/testdata/llama.cpp), the last
// one again once they run out.
func replayed(t *testing.T, f *fixture, stream bool, names ...string) {
	t.Helper()
	type answer struct {
		status int
		body   []byte
	}
	var answers []answer
	for _, n := range names {
		body, err := os.ReadFile(filepath.Join("..", "llm", "openai", "testdata", "llama.cpp", n+".body"))
		if err != nil {
			t.Fatal(err)
		}
		status := http.StatusOK
		if strings.HasPrefix(n, "context-overflow") {
			status = http.StatusBadRequest
		}
		answers = append(answers, answer{status, body})
	}
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		a := answers[0]
		if len(answers) > 1 {
			answers = answers[1:]
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if a.status == http.StatusOK && stream {
			w.Header().Set("Content-Type", "text/event-stream")
		}
		w.WriteHeader(a.status)
		w.Write(a.body)
	}))
	t.Cleanup(srv.Close)
	c, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "qwen", Stream: stream, Clock: f.clock})
	if err != nil {
		t.Fatal(err)
	}
	f.model.Model = c
}

// TestRecordedLlamaCppExchangesAsTheLoopReadsThem: the loop reads each
// recorded answer of the real llama.cpp server as the case it records
// (issue 28).
func TestRecordedLlamaCppExchangesAsTheLoopReadsThem(t *testing.T) {
	for _, stream := range []bool{false, true} {
		suffix := ""
		if stream {
			suffix = "-stream"
		}
		for _, cut := range []string{"tool-call-cut-early", "tool-call-cut-late"} {
			t.Run(cut+suffix+" is regenerated with twice the cap, then the call is made", func(t *testing.T) {
				f := setup(t, "turns: [{text: unused}]", nil)
				replayed(t, f, stream, cut+suffix, "tool-call"+suffix)
				f.cfg.Spec.MaxTokens, f.cfg.Spec.MaxSteps = 8, 2
				res := agent.Run(context.Background(), f.cfg, "Read notes.txt and write its lines in reverse order to out.txt.")
				if res.Outcome != agent.StepLimit {
					t.Fatalf("outcome %s (%s), want the step brake after the two replies", res.Outcome, res.Reason)
				}
				if caps := f.caps(); len(caps) != 2 || caps[0] != 8 || caps[1] != 16 {
					t.Errorf("caps %v, want 8 and the regeneration's 16", caps)
				}
				if got := f.lines("truncated"); len(got) != 1 || !strings.Contains(got[0], "regenerate") {
					t.Errorf("truncated events %q, want one regeneration", got)
				}
				if got := f.lines("tool"); len(got) != 1 {
					t.Errorf("tool events %q, want the regenerated call run once", got)
				}
			})
		}
		t.Run("context-overflow"+suffix+" teaches the window and, with nothing to drop, ends context-full", func(t *testing.T) {
			f := setup(t, "turns: [{text: unused}]", nil)
			replayed(t, f, stream, "context-overflow"+suffix)
			res := agent.Run(context.Background(), f.cfg, "Summarise: the tide comes in and goes out.")
			if res.Outcome != agent.ContextFull || res.Steps != 0 {
				t.Fatalf("outcome %s after %d steps (%s), want context-full after none", res.Outcome, res.Steps, res.Reason)
			}
			if !strings.Contains(res.Reason, "context window of 512 tokens") || !strings.Contains(res.Reason, "refused a prompt of 1210 tokens") {
				t.Errorf("reason %q", res.Reason)
			}
			if r := f.lines("retry"); len(r) != 0 {
				t.Errorf("retries %v", r)
			}
		})
	}
	t.Run("length-at-window is a full window, not a cut at max_tokens", func(t *testing.T) {
		f := setup(t, "turns: [{text: unused}]", nil)
		replayed(t, f, false, "length-at-window")
		f.cfg.Spec.ContextWindow = 512 // what /props says of this server (props-window-512)
		res := agent.Run(context.Background(), f.cfg, "Read notes.txt and write its lines in reverse order to out.txt.")
		if res.Outcome != agent.ContextFull || res.Steps != 1 {
			t.Fatalf("outcome %s after %d steps (%s), want context-full after 1", res.Outcome, res.Steps, res.Reason)
		}
		if !strings.Contains(res.Reason, "after 96 tokens of output, 416 of prompt") {
			t.Errorf("reason %q", res.Reason)
		}
		if got := f.lines("tool"); len(got) != 0 {
			t.Errorf("the cut reply's calls ran: %q", got)
		}
	})
	t.Run("length-at-window-stream ended before the window: its call runs", func(t *testing.T) {
		f := setup(t, "turns: [{text: unused}]", nil)
		replayed(t, f, true, "length-at-window-stream")
		f.cfg.Spec.ContextWindow, f.cfg.Spec.MaxSteps = 512, 1
		res := agent.Run(context.Background(), f.cfg, "Read notes.txt and write its lines in reverse order to out.txt.")
		if res.Outcome != agent.StepLimit || len(f.lines("tool")) != 1 {
			t.Errorf("outcome %s (%s), tools %q; want its one call run", res.Outcome, res.Reason, f.lines("tool"))
		}
	})
}
