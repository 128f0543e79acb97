package scripted_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/anthropic"
	"github.com/nightshift-dev/nightshift/llm/openai"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// chars returns text of n characters: n/4 estimated tokens.
func chars(n int) string { return strings.Repeat("abcd", n/4) }

// post sends a raw JSON body to path and returns the decoded reply.
func post(t *testing.T, url, path, body string, header map[string]string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("reply %s: %v", b, err)
	}
	return res.StatusCode, out
}

// cached is an Anthropic reply's usage: uncached input, cache writes,
// cache reads.
type cached struct{ In, Write, Read int64 }

func anthropicUsage(t *testing.T, out map[string]any) cached {
	t.Helper()
	u, ok := out["usage"].(map[string]any)
	if !ok {
		t.Fatalf("no usage in %v", out)
	}
	n := func(k string) int64 { f, _ := u[k].(float64); return int64(f) }
	return cached{n("input_tokens"), n("cache_creation_input_tokens"), n("cache_read_input_tokens")}
}

// messagesBody is a Messages request: model, system blocks, messages.
func messagesBody(model, system string, msgs ...string) string {
	return fmt.Sprintf(`{"model":%q,"max_tokens":100,"system":%s,"messages":[%s]}`, model, system, strings.Join(msgs, ","))
}

const mark = `,"cache_control":{"type":"ephemeral"}`

// sysBlock is a system prompt of n characters, with a breakpoint when
// marked.
func sysBlock(n int, marked bool) string {
	cc := ""
	if marked {
		cc = mark
	}
	return fmt.Sprintf(`[{"type":"text","text":%q%s}]`, chars(n), cc)
}

func userMsg(text string, marked bool) string {
	cc := ""
	if marked {
		cc = mark
	}
	return fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":%q%s}]}`, text, cc)
}

func asstMsg(text string) string {
	return fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":%q}]}`, text)
}

var anthropicHeader = map[string]string{"anthropic-version": "2023-06-01"}

func sessionHeader(s string) map[string]string {
	return map[string]string{"anthropic-version": "2023-06-01", scripted.SessionHeader: s}
}

func TestTheSimulatorCachesAsAnthropicDoes(t *testing.T) {
	const sc = `{loop: true, turns: [{text: ok}]}`
	start := time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)

	t.Run("a breakpoint's prefix is written, then read by the next call with the same head", func(t *testing.T) {
		hs, _ := startServer(t, sc, scripted.ServerConfig{})
		_, out := post(t, hs.URL, "/v1/messages", messagesBody("claude-sonnet-4-5", sysBlock(4400, true), userMsg("hi", false)), anthropicHeader)
		if got, want := anthropicUsage(t, out), (cached{In: 1, Write: 1100}); got != want {
			t.Errorf("first call: %+v, want %+v", got, want)
		}
		_, out = post(t, hs.URL, "/v1/messages", messagesBody("claude-sonnet-4-5", sysBlock(4400, true), userMsg("another task", false)), anthropicHeader)
		if got, want := anthropicUsage(t, out), (cached{In: 3, Read: 1100}); got != want {
			t.Errorf("second call: %+v, want %+v", got, want)
		}
	})

	t.Run("a prefix shorter than the model's minimum is not cached", func(t *testing.T) {
		hs, _ := startServer(t, sc, scripted.ServerConfig{})
		for _, tt := range []struct {
			model string
			chars int
		}{{"claude-sonnet-4-5", 4000}, {"claude-haiku-4-5", 16000}, {"claude-3-5-haiku-20241022", 8000}} {
			for range 2 {
				_, out := post(t, hs.URL, "/v1/messages", messagesBody(tt.model, sysBlock(tt.chars, true), userMsg("hi", false)), anthropicHeader)
				if got := anthropicUsage(t, out); got.Write != 0 || got.Read != 0 {
					t.Errorf("%s, %d tokens: %+v, want no cache use", tt.model, tt.chars/4, got)
				}
			}
		}
		_, out := post(t, hs.URL, "/v1/messages", messagesBody("claude-haiku-4-5", sysBlock(16400, true), userMsg("hi", false)), anthropicHeader)
		if got := anthropicUsage(t, out); got.Write != 4100 {
			t.Errorf("claude-haiku-4-5, 4,100 tokens: %+v, want them written", got)
		}
	})

	t.Run("an entry lives five minutes from its last read, on the simulator's clock", func(t *testing.T) {
		fc := clock.NewFake(start)
		hs, _ := startServer(t, sc, scripted.ServerConfig{Clock: fc})
		body := messagesBody("m", sysBlock(4400, true), userMsg("hi", false))
		var got []cached
		for _, wait := range []time.Duration{0, 4 * time.Minute, 4*time.Minute + 59*time.Second, 5*time.Minute + time.Second} {
			fc.Advance(wait)
			_, out := post(t, hs.URL, "/v1/messages", body, anthropicHeader)
			got = append(got, anthropicUsage(t, out))
		}
		want := []cached{{1, 1100, 0}, {1, 0, 1100}, {1, 0, 1100}, {1, 1100, 0}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("usage over time (-want +got):\n%s", diff)
		}
	})

	t.Run("an hour's breakpoint lives an hour", func(t *testing.T) {
		fc := clock.NewFake(start)
		hs, _ := startServer(t, sc, scripted.ServerConfig{Clock: fc})
		sys := fmt.Sprintf(`[{"type":"text","text":%q,"cache_control":{"type":"ephemeral","ttl":"1h"}}]`, chars(4400))
		post(t, hs.URL, "/v1/messages", messagesBody("m", sys, userMsg("hi", false)), anthropicHeader)
		fc.Advance(50 * time.Minute)
		_, out := post(t, hs.URL, "/v1/messages", messagesBody("m", sys, userMsg("hi", false)), anthropicHeader)
		if got := anthropicUsage(t, out); got.Read != 1100 {
			t.Errorf("after 50 minutes: %+v, want a read", got)
		}
	})

	t.Run("sessions have caches of their own; conversations within one share it", func(t *testing.T) {
		hs, _ := startServer(t, sc, scripted.ServerConfig{})
		body := messagesBody("m", sysBlock(4400, true), userMsg("hi", false))
		post(t, hs.URL, "/v1/messages", body, sessionHeader("a"))
		_, out := post(t, hs.URL, "/v1/messages", body, sessionHeader("b"))
		if got := anthropicUsage(t, out); got.Read != 0 {
			t.Errorf("session b read session a's entry: %+v", got)
		}
		_, out = post(t, hs.URL, "/v1/messages", messagesBody("m", sysBlock(4400, true), userMsg("another conversation", false)), sessionHeader("a"))
		if got := anthropicUsage(t, out); got.Read != 1100 {
			t.Errorf("another conversation of session a: %+v, want the shared head read", got)
		}
	})

	t.Run("a breakpoint finds an entry up to 20 blocks before it, not further", func(t *testing.T) {
		hs, _ := startServer(t, sc, scripted.ServerConfig{})
		turns := func(n int, markLast bool) []string {
			var msgs []string
			for i := range n {
				if i%2 == 0 {
					msgs = append(msgs, userMsg(fmt.Sprintf("u%02d", i), markLast && i == n-1))
				} else {
					msgs = append(msgs, asstMsg(fmt.Sprintf("a%02d", i)))
				}
			}
			return msgs
		}
		// The entry: the head and three turns (1,103 tokens).
		post(t, hs.URL, "/v1/messages", messagesBody("m", sysBlock(4400, false), turns(3, true)...), anthropicHeader)
		// 20 blocks later, one breakpoint: found.
		_, out := post(t, hs.URL, "/v1/messages", messagesBody("m", sysBlock(4400, false), turns(23, true)...), anthropicHeader)
		if got := anthropicUsage(t, out); got.Read != 1100+3 {
			t.Errorf("20 blocks after the entry: %+v, want it read", got)
		}
		// 22 blocks later: out of reach; the whole prompt is written.
		_, out = post(t, hs.URL, "/v1/messages", messagesBody("m", sysBlock(4400, false), turns(25, true)...), anthropicHeader)
		if got := anthropicUsage(t, out); got.Read != 1100+23 {
			t.Errorf("22 blocks after the entry: %+v, want the entry 2 blocks back read (written by the call before)", got)
		}
		hs2, _ := startServer(t, sc, scripted.ServerConfig{})
		post(t, hs2.URL, "/v1/messages", messagesBody("m", sysBlock(4400, false), turns(3, true)...), anthropicHeader)
		_, out = post(t, hs2.URL, "/v1/messages", messagesBody("m", sysBlock(4400, false), turns(25, true)...), anthropicHeader)
		if got := anthropicUsage(t, out); got.Read != 0 || got.Write != 1100+25 {
			t.Errorf("22 blocks after the only entry: %+v, want a miss and the whole prompt written", got)
		}
	})

	t.Run("the top-level cache_control caches up to the last block", func(t *testing.T) {
		hs, _ := startServer(t, sc, scripted.ServerConfig{})
		body := fmt.Sprintf(`{"model":"m","max_tokens":10,"cache_control":{"type":"ephemeral"},"system":%q,"messages":[%s]}`, chars(4400), userMsg("hi", false))
		_, out := post(t, hs.URL, "/v1/messages", body, anthropicHeader)
		if got := anthropicUsage(t, out); got.Write != 1101 {
			t.Errorf("%+v, want the whole prompt written", got)
		}
	})

	t.Run("a fifth breakpoint is refused as the API refuses it", func(t *testing.T) {
		hs, _ := startServer(t, sc, scripted.ServerConfig{})
		var msgs []string
		for i := range 5 {
			if i%2 == 0 {
				msgs = append(msgs, userMsg("u", true))
			} else {
				msgs = append(msgs, fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"a"%s}]}`, mark))
			}
		}
		status, out := post(t, hs.URL, "/v1/messages", messagesBody("m", sysBlock(10, false), msgs...), anthropicHeader)
		e, _ := out["error"].(map[string]any)
		if status != http.StatusBadRequest || e["message"] != "A maximum of 4 blocks with cache_control may be provided. Found 5." {
			t.Errorf("status %d, body %v", status, out)
		}
	})
}

func TestTheSimulatorCachesAsOpenAIDoes(t *testing.T) {
	hs, _ := startServer(t, `{loop: true, turns: [{text: ok}]}`, scripted.ServerConfig{})
	chat := func(session string, msgs ...string) (prompt, cachedTokens int64) {
		body := fmt.Sprintf(`{"model":"gpt-test","messages":[%s]}`, strings.Join(msgs, ","))
		_, out := post(t, hs.URL, "/v1/chat/completions", body, map[string]string{scripted.SessionHeader: session})
		u := out["usage"].(map[string]any)
		d := u["prompt_tokens_details"].(map[string]any)
		return int64(u["prompt_tokens"].(float64)), int64(d["cached_tokens"].(float64))
	}
	sys := func(n int) string { return fmt.Sprintf(`{"role":"system","content":%q}`, chars(n)) }
	user := func(s string) string { return fmt.Sprintf(`{"role":"user","content":%q}`, s) }
	asst := func(s string) string { return fmt.Sprintf(`{"role":"assistant","content":%q}`, s) }

	t.Run("a prompt under 1,024 tokens is never cached", func(t *testing.T) {
		for range 2 {
			if _, c := chat("short", sys(4000), user("hi")); c != 0 {
				t.Errorf("cached %d", c)
			}
		}
	})
	t.Run("the longest cached prefix is read, counted from 1,024 in steps of 128", func(t *testing.T) {
		p1, c1 := chat("long", sys(6000), user("hi"))
		if p1 != 1501 || c1 != 0 {
			t.Errorf("first call: prompt %d cached %d, want 1501 and 0", p1, c1)
		}
		p2, c2 := chat("long", sys(6000), user("hi"), asst("hello"), user("go on"))
		if want := int64(1024 + (1501-1024)/128*128); p2 != 1501+2+2 || c2 != want {
			t.Errorf("second call: prompt %d cached %d, want %d and %d", p2, c2, 1505, want)
		}
	})
}

// TestBothWiresCountTheSameTokens: one conversation sent through each
// provider is the same number of estimated tokens, and the cache's
// share of it is within OpenAI's step of Anthropic's.
func TestBothWiresCountTheSameTokens(t *testing.T) {
	hs, _ := startServer(t, `{loop: true, turns: [{text: ok}]}`, scripted.ServerConfig{})
	ac, err := anthropic.New(anthropic.Config{BaseURL: hs.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	oc, err := openai.New(openai.Config{BaseURL: hs.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{
		System: chars(6000),
		Tools:  []llm.ToolSpec{{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Messages: []llm.Message{
			llm.UserText("Read a.txt."),
			{Role: llm.Assistant, Content: []llm.Block{llm.ToolUse("toolu_1", "read_file", json.RawMessage(`{"path":"a.txt"}`))}},
			{Role: llm.User, Content: []llm.Block{llm.ToolResult("toolu_1", "alpha beta gamma", false)}},
		},
	}
	var got [2][]llm.Usage
	for i, m := range []llm.Model{ac, oc} {
		for range 2 {
			resp, err := m.Generate(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			got[i] = append(got[i], resp.Usage)
		}
	}
	a, o := got[0], got[1]
	if a[0].InputTokens != o[0].InputTokens {
		t.Errorf("input tokens: Anthropic %d, OpenAI %d", a[0].InputTokens, o[0].InputTokens)
	}
	if a[1].CacheReadTokens != a[1].InputTokens || o[1].CacheReadTokens > a[1].CacheReadTokens || a[1].CacheReadTokens-o[1].CacheReadTokens >= 128 {
		t.Errorf("the second call's cache reads: Anthropic %+v, OpenAI %+v", a[1], o[1])
	}
}

func TestTheModelCachesInProcessAsTheAnthropicProviderAsks(t *testing.T) {
	sc, err := scripted.Parse([]byte(`{loop: true, turns: [{text: ok}]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := scripted.New(sc, scripted.Config{})
	msgs := []llm.Message{llm.UserText("task")}
	var got []llm.Usage
	for i := range 3 {
		resp, err := m.Generate(context.Background(), &llm.Request{System: chars(4400), Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, resp.Usage)
		msgs = append(msgs, llm.Message{Role: llm.Assistant, Content: []llm.Block{llm.Text(fmt.Sprintf("step %d", i))}}, llm.UserText("go on"))
	}
	// Call 1: the head written. Call 2: the head read, the rest written
	// up to the latest turn. Call 3: call 2's prompt read.
	want := []llm.Usage{
		{InputTokens: 1101, OutputTokens: 1, CacheWriteTokens: 1100},
		{InputTokens: 1105, OutputTokens: 1, CacheWriteTokens: 5, CacheReadTokens: 1100},
		{InputTokens: 1109, OutputTokens: 1, CacheWriteTokens: 4, CacheReadTokens: 1105},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	resp, err := m.Generate(context.Background(), &llm.Request{System: chars(4400), Messages: msgs, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if u := resp.Usage; u.CacheReadTokens != 0 || u.CacheWriteTokens != 0 {
		t.Errorf("with NoCache: %+v, want no cache use", u)
	}
}

// TestScriptedCacheCountsWin: a scenario's own cache counts are used as
// given, and the simulated cache is not consulted.
func TestScriptedCacheCountsWin(t *testing.T) {
	sc, err := scripted.Parse([]byte(`{loop: true, turns: [{text: ok, usage: {cache_read: 5}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := scripted.New(sc, scripted.Config{})
	for range 2 {
		resp, err := m.Generate(context.Background(), &llm.Request{System: chars(4400), Messages: []llm.Message{llm.UserText("x")}})
		if err != nil {
			t.Fatal(err)
		}
		if u := resp.Usage; u.CacheReadTokens != 5 || u.CacheWriteTokens != 0 || u.InputTokens != 1101 {
			t.Errorf("usage %+v", u)
		}
	}
}
