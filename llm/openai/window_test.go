package openai

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/llm/window"
	"github.com/nightshift-dev/nightshift/retry"
)

// sim serves a scenario; the client calls it with base URL .../v1.
func sim(t *testing.T, scenario string, cfg scripted.ServerConfig) *httptest.Server {
	t.Helper()
	sc, err := scripted.Parse([]byte(scenario))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(scripted.NewServer(sc, cfg))
	t.Cleanup(srv.Close)
	return srv
}

// TestAskWindowOfEachServer: the window is learnt from each of the four
// servers' own endpoints, as the simulator plays them (issue 28).
func TestAskWindowOfEachServer(t *testing.T) {
	for _, tc := range []struct {
		kind string
		want window.Info
	}{
		{"llama.cpp", window.Info{Tokens: 512, From: window.FromLlamaCpp}},
		{"vllm", window.Info{Tokens: 512, From: window.FromVLLM}},
		{"lmstudio", window.Info{Tokens: 512, From: window.FromLMStudio}},
		{"ollama", window.Info{Tokens: 512, From: window.FromOllama}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			srv := sim(t, "server: {kind: "+tc.kind+", window: 512, model: qwen2.5:7b}\nturns: [{text: hi}]", scripted.ServerConfig{})
			c, err := New(Config{BaseURL: srv.URL + "/v1", Model: "qwen2.5:7b"})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.AskWindow(context.Background())
			if err != nil || got != tc.want {
				t.Errorf("AskWindow = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	t.Run("a template that ignores tools is said", func(t *testing.T) {
		srv := sim(t, "server: {window: 4096, tools: ignored}\nturns: [{text: hi}]", scripted.ServerConfig{})
		c, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "scripted"})
		if got, _ := c.AskWindow(context.Background()); !got.ToolsIgnored || got.Tokens != 4096 {
			t.Errorf("AskWindow = %+v, want 4096 with tools ignored", got)
		}
	})
	t.Run("a server with none of the endpoints says nothing, and is no error", func(t *testing.T) {
		srv := sim(t, "turns: [{text: hi}]", scripted.ServerConfig{})
		c, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "scripted"})
		if got, err := c.AskWindow(context.Background()); err != nil || got.Tokens != 0 {
			t.Errorf("AskWindow = %+v, %v; want nothing", got, err)
		}
	})
	t.Run("a model the model table knows is not asked about", func(t *testing.T) {
		srv := sim(t, "server: {kind: vllm, window: 512, model: gpt-6-sol}\nturns: [{text: hi}]", scripted.ServerConfig{})
		c, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "gpt-6-sol"})
		if got, err := c.AskWindow(context.Background()); err != nil || got != (window.Info{}) {
			t.Errorf("AskWindow = %+v, %v; want nothing asked", got, err)
		}
	})
	t.Run("OpenAI's own API is not asked", func(t *testing.T) {
		c, _ := New(Config{APIKey: testKey, BaseURL: "https://api.openai.com/v1"})
		if got, err := c.AskWindow(context.Background()); err != nil || got != (window.Info{}) {
			t.Errorf("AskWindow = %+v, %v", got, err)
		}
	})
	t.Run("a server that cannot be reached is an error", func(t *testing.T) {
		srv := sim(t, "turns: [{text: hi}]", scripted.ServerConfig{})
		srv.Close()
		c, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "qwen"})
		if _, err := c.AskWindow(context.Background()); err == nil {
			t.Error("no error")
		}
	})
}

// TestStallAllowsALongPromptsFirstByte: a local server sends nothing until
// it has read the whole prompt. A streamed call whose first byte takes
// longer than the stall time, on a long prompt, is not cancelled while
// the server is still reading it (the simulator's prefill: 2 ms a token,
// 4.2 s for 2,100 tokens, with a stall time of 2 s: issue 28, all 4
// attempts were cancelled).
func TestStallAllowsALongPromptsFirstByte(t *testing.T) {
	prompt := &llm.Request{Messages: []llm.Message{llm.UserText(strings.Repeat("tide", 2100))}}
	for _, tc := range []struct {
		name     string
		perToken time.Duration
		stalls   bool
	}{
		{"with the default allowance, the first byte is waited for", 0, false},
		{"with no allowance, the stall cancels it (the issue's failure)", -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := clock.NewFake(time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC))
			srv := sim(t, "server: {prefill: 2ms}\nturns: [{text: read it all}]", scripted.ServerConfig{Clock: fc})
			c, err := New(Config{BaseURL: srv.URL + "/v1", Stream: true, Stall: 2 * time.Second, PrefillPerToken: tc.perToken, Clock: fc})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Generate(context.Background(), prompt)
			if tc.stalls {
				if llm.ClassOf(err) != llm.Timeout {
					t.Fatalf("Generate: %v, want the stall's timeout", err)
				}
				return
			}
			if err != nil || resp.Message().Text() != "read it all" {
				t.Fatalf("Generate: %v, %+v", err, resp)
			}
			if fc.Now().Sub(time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)) < 4*time.Second {
				t.Errorf("the server read the prompt in %s; the test wants more than the stall time", fc.Now().Sub(time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)))
			}
		})
	}
	t.Run("a stall before the first byte is retried after as long as it lasted", func(t *testing.T) {
		fc := clock.NewFake(time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC))
		srv := sim(t, "server: {prefill: 2ms}\nturns: [{text: read it all}]", scripted.ServerConfig{Clock: fc})
		c, _ := New(Config{BaseURL: srv.URL + "/v1", Stream: true, Stall: 2 * time.Second, PrefillPerToken: -1, Clock: fc})
		var retries []retry.Attempt
		m := retry.Wrap(c, retry.Policy{Clock: fc, Retries: 1, OnRetry: func(a retry.Attempt) { retries = append(retries, a) }})
		m.Generate(context.Background(), prompt) //nolint:errcheck // the retries are what is checked
		if len(retries) != 1 || retries[0].Cause != retry.CauseStalled || retries[0].Wait < 2*time.Second {
			t.Errorf("retries %+v, want one waiting the stall's 2s (cause stalled)", retries)
		}
	})
}
