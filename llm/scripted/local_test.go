package scripted_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

func parse(t *testing.T, src string) *scripted.Scenario {
	t.Helper()
	sc, err := scripted.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// long is a user message of about n tokens as the simulator counts them.
func long(n int) *llm.Request {
	return &llm.Request{Messages: []llm.Message{llm.UserText(strings.Repeat("word", n))}, MaxTokens: 256}
}

// TestLocalServerWindow: a prompt over the window is refused in the
// server's own words, which name the window (Ollama's do not), and a
// reply that would pass the window stops at it.
func TestLocalServerWindow(t *testing.T) {
	for _, tc := range []struct {
		kind   string
		window int
	}{
		{"llama.cpp", 512},
		{"vllm", 512},
		{"lmstudio", 512},
		{"ollama", 0},
	} {
		t.Run(tc.kind+" refuses a prompt over its window", func(t *testing.T) {
			m := scripted.New(parse(t, "server: {kind: "+tc.kind+", window: 512}\nturns: [{text: hi}]"), scripted.Config{})
			_, err := m.Generate(context.Background(), long(1000))
			var e *llm.Error
			if !errors.As(err, &e) || e.Class != llm.ContextOverflow || e.Window != tc.window {
				t.Fatalf("Generate: %v (%+v), want a context-overflow naming window %d", err, e, tc.window)
			}
		})
	}
	t.Run("vLLM refuses a prompt that leaves no room for max_tokens", func(t *testing.T) {
		m := scripted.New(parse(t, "server: {kind: vllm, window: 512}\nturns: [{text: hi}]"), scripted.Config{})
		req := long(400)
		req.MaxTokens = 4096
		if _, err := m.Generate(context.Background(), req); llm.ClassOf(err) != llm.ContextOverflow {
			t.Fatalf("Generate: %v, want a context-overflow", err)
		}
	})
	t.Run("a reply that would pass the window stops at it", func(t *testing.T) {
		m := scripted.New(parse(t, "server: {window: 512}\nturns: [{text: "+strings.Repeat("x", 4000)+"}]"), scripted.Config{})
		resp, err := m.Generate(context.Background(), long(400))
		if err != nil {
			t.Fatal(err)
		}
		if u := resp.Usage; resp.StopReason != llm.MaxTokens || u.InputTokens+u.OutputTokens != 512 {
			t.Errorf("stop %s usage %+v, want max_tokens at 512", resp.StopReason, u)
		}
		if n := len(resp.Message().Text()); n >= 4000 || n == 0 {
			t.Errorf("the text kept %d characters, want it cut", n)
		}
	})
	t.Run("tools a template ignores are not counted", func(t *testing.T) {
		schema := json.RawMessage(`{"type":"object","properties":{"x":{"type":"string","description":"` + strings.Repeat("d", 4000) + `"}}}`)
		req := long(10)
		req.Tools = []llm.ToolSpec{{Name: "t", InputSchema: schema}}
		for _, tc := range []struct {
			tools string
			more  bool
		}{{"supported", true}, {"ignored", false}} {
			m := scripted.New(parse(t, "server: {tools: "+tc.tools+"}\nturns: [{text: hi}]"), scripted.Config{})
			resp, err := m.Generate(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Usage.InputTokens > 1000; got != tc.more {
				t.Errorf("tools %s: %d prompt tokens", tc.tools, resp.Usage.InputTokens)
			}
		}
	})
}

// TestRawMarkupReplies: a reply's tool calls written as a template's raw
// markup, and cut where a small max_tokens cuts them.
func TestRawMarkupReplies(t *testing.T) {
	m := scripted.New(parse(t, `turns:
  - tool_calls: [{name: read_file, input: {path: notes.txt}}]
    markup: qwen
    cut: 22`), scripted.Config{})
	resp, err := m.Generate(context.Background(), long(10))
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Message().Text(); got != "<tool_call>\n{\"name\": \"" || resp.StopReason != llm.MaxTokens || len(resp.Message().ToolUses()) != 0 {
		t.Errorf("reply %q stop %s, want the cut markup as text, max_tokens", got, resp.StopReason)
	}
	for _, bad := range []string{
		"turns: [{text: x, markup: qwen}]",
		"turns: [{tool_calls: [{name: a}], markup: chatml}]",
		"turns: [{empty: true, stop: end_turn}]",
		"server: {kind: tgi}\nturns: [{text: x}]",
		"server: {tools: maybe}\nturns: [{text: x}]",
	} {
		if _, err := scripted.Parse([]byte(bad)); err == nil {
			t.Errorf("%q parses", bad)
		}
	}
	if _, err := scripted.Parse([]byte("turns: [{empty: true, stop: max_tokens}]")); err != nil {
		t.Errorf("an empty reply cut at max_tokens: %v", err)
	}
}

// TestLocalServerOverHTTP: the overflow error as each server writes it,
// and the prompt's reading before the first byte.
func TestLocalServerOverHTTP(t *testing.T) {
	post := func(t *testing.T, srv *httptest.Server, body string) (int, string) {
		res, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	big := `{"model":"qwen","max_tokens":256,"messages":[{"role":"user","content":"` + strings.Repeat("word", 1000) + `"}]}`
	t.Run("llama.cpp's exceed_context_size_error carries n_prompt_tokens and n_ctx", func(t *testing.T) {
		srv := httptest.NewServer(scripted.NewServer(parse(t, "server: {window: 512}\nturns: [{text: hi}]"), scripted.ServerConfig{}))
		defer srv.Close()
		status, body := post(t, srv, big)
		var e struct {
			Error struct {
				Type   string `json:"type"`
				NCtx   int    `json:"n_ctx"`
				Prompt int    `json:"n_prompt_tokens"`
			} `json:"error"`
		}
		json.Unmarshal([]byte(body), &e)
		if status != 400 || e.Error.Type != "exceed_context_size_error" || e.Error.NCtx != 512 || e.Error.Prompt < 1000 {
			t.Errorf("%d %s", status, body)
		}
	})
	t.Run("the first byte waits for the prompt to be read", func(t *testing.T) {
		fc := clock.NewFake(time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC))
		srv := httptest.NewServer(scripted.NewServer(parse(t, "server: {prefill: 2ms}\nturns: [{text: hi}]"), scripted.ServerConfig{Clock: fc}))
		defer srv.Close()
		if status, _ := post(t, srv, big); status != 200 {
			t.Fatalf("status %d", status)
		}
		if w := fc.Waits(); len(w) != 1 || w[0] < 2*time.Second {
			t.Errorf("waited %v, want about 2ms for each of 1,000 tokens", w)
		}
	})
}
