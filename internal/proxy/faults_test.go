package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/internal/proxy"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/anthropic"
	"github.com/nightshift-dev/nightshift/llm/openai"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// The scripted upstream's answer: a text and a tool call.
const (
	answerText  = "I will read the notes first, then summarise them."
	answerInput = `{"path":"notes.txt"}`
)

const answerScenario = `
loop: true
turns:
  - text: "` + answerText + `"
    tool_calls: [{name: read_file, input: {path: notes.txt}}]
`

// simUpstream serves the answer scenario, both wires, as `sim serve`
// does.
func simUpstream(t testing.TB, yaml string) (*httptest.Server, *scripted.Server) {
	t.Helper()
	sc, err := scripted.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	sim := scripted.NewServer(sc, scripted.ServerConfig{})
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	return srv, sim
}

// model is a nightshift provider of wire against base.
func model(t testing.TB, wire, base string, stream bool, stall time.Duration) llm.Model {
	t.Helper()
	var m llm.Model
	var err error
	if wire == "anthropic" {
		m, err = anthropic.New(anthropic.Config{APIKey: "sk-ant-test-made-up", BaseURL: base, Model: "claude-sonnet-4-5", Stream: stream, Stall: stall})
	} else {
		m, err = openai.New(openai.Config{APIKey: "sk-test-made-up", BaseURL: base + "/v1", Model: "gpt-4.1", Stream: stream, Stall: stall})
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var readFile = llm.ToolSpec{Name: "read_file", Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}

func ask() *llm.Request {
	return &llm.Request{Messages: []llm.Message{llm.UserText("Summarise notes.txt")}, Tools: []llm.ToolSpec{readFile}, MaxTokens: 256}
}

// outcome is what a provider made of a faulted exchange.
type outcome struct {
	resp *llm.Response
	err  error
	// forwarded counts the requests the upstream received.
	forwarded int
	log       string
}

func text(r *llm.Response) string {
	var b strings.Builder
	for _, bl := range r.Content {
		if bl.Type == llm.TextBlock {
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}

func toolUses(r *llm.Response) []llm.Block {
	var out []llm.Block
	for _, bl := range r.Content {
		if bl.Type == llm.ToolUseBlock {
			out = append(out, bl)
		}
	}
	return out
}

func class(err error) llm.Class {
	var e *llm.Error
	if errors.As(err, &e) {
		return e.Class
	}
	return ""
}

// faultCases say, for each fault kind, what a provider must make of it,
// on both wires, streamed and not.
var faultCases = []struct {
	kind  string
	check func(t *testing.T, wire string, stream bool, o outcome)
}{
	{"429", func(t *testing.T, wire string, stream bool, o outcome) {
		var e *llm.Error
		if !errors.As(o.err, &e) || e.Class != llm.RateLimited || e.Status != 429 || e.RetryAfter != time.Second {
			t.Fatalf("err = %v, want a rate-limited 429 with Retry-After 1s", o.err)
		}
		if o.forwarded != 0 {
			t.Errorf("the upstream got %d requests, want none", o.forwarded)
		}
	}},
	{"529", func(t *testing.T, wire string, stream bool, o outcome) {
		var e *llm.Error
		want := 529
		if wire == "openai" {
			want = 503 // 529 is Anthropic's; OpenAI says 503
		}
		if !errors.As(o.err, &e) || e.Class != llm.Overloaded || e.Status != want {
			t.Fatalf("err = %v, want overloaded %d", o.err, want)
		}
	}},
	{"500", func(t *testing.T, wire string, stream bool, o outcome) {
		if class(o.err) != llm.Transient {
			t.Fatalf("err = %v, want transient", o.err)
		}
	}},
	{"reset", func(t *testing.T, wire string, stream bool, o outcome) {
		if class(o.err) != llm.Connection {
			t.Fatalf("err = %v (class %q), want a connection failure", o.err, class(o.err))
		}
		if o.forwarded != 0 {
			t.Errorf("the upstream got %d requests, want none", o.forwarded)
		}
	}},
	{"reset_after_headers", func(t *testing.T, wire string, stream bool, o outcome) {
		if !class(o.err).Retryable() {
			t.Fatalf("err = %v (class %q), want a retryable failure", o.err, class(o.err))
		}
		if o.forwarded != 1 || !strings.Contains(o.log, "sent 200 and its headers, then reset") {
			t.Errorf("forwarded %d, log %q: want the upstream's headers sent, then a reset", o.forwarded, o.log)
		}
	}},
	{"cut", func(t *testing.T, wire string, stream bool, o outcome) {
		if !class(o.err).Retryable() {
			t.Fatalf("err = %v (class %q), want a retryable failure", o.err, class(o.err))
		}
		if !strings.Contains(o.log, "then reset the connection") {
			t.Errorf("log %q: want the reply cut and the connection reset", o.log)
		}
	}},
	{"stall", func(t *testing.T, wire string, stream bool, o outcome) {
		if o.err == nil {
			t.Fatalf("the stalled call succeeded: %+v", o.resp)
		}
		if stream && class(o.err) != llm.Timeout {
			t.Errorf("err = %v, want the stall watch's timeout", o.err)
		}
		if !stream && o.forwarded != 0 {
			t.Errorf("the upstream got %d requests, want none: a stall without a stream holds the request", o.forwarded)
		}
	}},
	{"truncate", func(t *testing.T, wire string, stream bool, o outcome) {
		if o.err != nil {
			t.Fatal(o.err)
		}
		got := text(o.resp)
		if o.resp.StopReason != llm.MaxTokens || got == "" || !strings.HasPrefix(answerText, got) || len(got) >= len(answerText) {
			t.Fatalf("stop %s, text %q: want max_tokens and the answer's first part", o.resp.StopReason, got)
		}
		if n := len(toolUses(o.resp)); n != 0 {
			t.Errorf("%d tool calls survived the truncation", n)
		}
	}},
	{"empty", func(t *testing.T, wire string, stream bool, o outcome) {
		if o.err != nil {
			t.Fatal(o.err)
		}
		if text(o.resp) != "" || len(toolUses(o.resp)) != 0 || o.resp.StopReason != llm.EndTurn {
			t.Fatalf("reply %+v: want no content and end_turn", o.resp)
		}
	}},
	{"broken_json", func(t *testing.T, wire string, stream bool, o outcome) {
		if o.err != nil {
			t.Fatal(o.err)
		}
		uses := toolUses(o.resp)
		if len(uses) != 1 || uses[0].Name != "read_file" {
			t.Fatalf("tool calls %+v: want read_file", uses)
		}
		var obj map[string]any
		if json.Unmarshal(uses[0].Input, &obj) == nil {
			t.Fatalf("input %s is still a JSON object", uses[0].Input)
		}
		in := string(uses[0].Input)
		if s, err := unquote(in); err == nil {
			in = s // the Anthropic wire without a stream sends it as a string
		}
		if in == "" || !strings.HasPrefix(answerInput, in) {
			t.Errorf("input %q: want the start of %s", in, answerInput)
		}
	}},
	{"unknown_tool", func(t *testing.T, wire string, stream bool, o outcome) {
		if o.err != nil {
			t.Fatal(o.err)
		}
		uses := toolUses(o.resp)
		if len(uses) != 1 || uses[0].Name == "read_file" || uses[0].Name == "" {
			t.Fatalf("tool calls %+v: want one renamed away from read_file", uses)
		}
		var in map[string]any
		if err := json.Unmarshal(uses[0].Input, &in); err != nil || in["path"] != "notes.txt" {
			t.Errorf("input %s: want the real one", uses[0].Input)
		}
	}},
}

func unquote(s string) (string, error) {
	var out string
	err := json.Unmarshal([]byte(s), &out)
	return out, err
}

// TestEveryFaultOnBothWires injects each fault kind into a call of the
// nightshift providers, on both wires, streamed and not, with `sim serve`
// as the upstream, and checks what the provider made of it.
func TestEveryFaultOnBothWires(t *testing.T) {
	for _, fc := range faultCases {
		for _, wire := range []string{"anthropic", "openai"} {
			for _, stream := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/stream=%t", fc.kind, wire, stream), func(t *testing.T) {
					up, sim := simUpstream(t, answerScenario)
					srv, p, log := startProxy(t, proxy.Config{Upstream: up.URL, Schedule: schedule(t, "at: {1: "+fc.kind+"}")})
					ctx := t.Context()
					stall := time.Duration(-1)
					if fc.kind == "stall" {
						if stream {
							stall = 100 * time.Millisecond // the stall watch gives up
						} else {
							var cancel context.CancelFunc
							ctx, cancel = context.WithTimeout(ctx, 100*time.Millisecond) // the caller gives up
							defer cancel()
						}
					}
					resp, err := model(t, wire, srv.URL, stream, stall).Generate(ctx, ask())
					line := <-log.lines
					fc.check(t, wire, stream, outcome{resp: resp, err: err, forwarded: len(sim.Requests()), log: line})
					if got := p.Injected()[fc.kind]; got != 1 {
						t.Errorf("Injected()[%s] = %d, want 1", fc.kind, got)
					}
					if !strings.Contains(line, "#1 POST") || !strings.Contains(line, "fault "+fc.kind) {
						t.Errorf("log line %q does not say what the proxy did to request 1", line)
					}
				})
			}
		}
	}
}

// TestAStallWithADurationGoesOn stalls for 30s on an injected clock, then
// forwards: the call succeeds, and the clock says the proxy waited.
func TestAStallWithADurationGoesOn(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%t", stream), func(t *testing.T) {
			up, _ := simUpstream(t, answerScenario)
			clk := clock.NewFake(time.Date(2026, 11, 29, 22, 0, 0, 0, time.UTC))
			srv, _, _ := startProxy(t, proxy.Config{Upstream: up.URL, Clock: clk, Schedule: schedule(t, "at: {1: {stall: 30s}}")})
			resp, err := model(t, "anthropic", srv.URL, stream, -1).Generate(t.Context(), ask())
			if err != nil {
				t.Fatal(err)
			}
			if text(resp) != answerText || len(toolUses(resp)) != 1 {
				t.Errorf("reply %+v: want the whole answer after the stall", resp)
			}
			if w := clk.Waits(); len(w) != 1 || w[0] != 30*time.Second {
				t.Errorf("waits %v, want one of 30s", w)
			}
		})
	}
}

// TestAFaultOnAnErrorReplyIsNotApplied asks for an empty answer where the
// upstream answers 400: the error comes through as it was, and the log
// says the fault was not applied.
func TestAFaultOnAnErrorReplyIsNotApplied(t *testing.T) {
	up, _ := simUpstream(t, "turns: [{status: 400, error: {message: no such thing}}]")
	srv, _, log := startProxy(t, proxy.Config{Upstream: up.URL, Schedule: schedule(t, "at: {1: empty}")})
	_, err := model(t, "anthropic", srv.URL, false, -1).Generate(t.Context(), ask())
	if class(err) != llm.BadRequest || !strings.Contains(err.Error(), "no such thing") {
		t.Fatalf("err = %v, want the upstream's 400", err)
	}
	if line := <-log.lines; !strings.Contains(line, "not applied (upstream answered 400)") {
		t.Errorf("log %q: want the fault named as not applied", line)
	}
}

// TestContentFaultsOnRealReplies rewrites the golden replies, which have
// the real APIs' shapes (a ping, an empty first input delta, null usage
// fields, a trailing usage chunk), and reads them with the nightshift
// providers.
func TestContentFaultsOnRealReplies(t *testing.T) {
	const realText = "I will read the notes first."
	for _, wire := range []string{"anthropic", "openai"} {
		for _, stream := range []bool{false, true} {
			run := func(t *testing.T, kind string) *llm.Response {
				up := newGoldenUpstream(t)
				srv, _, _ := startProxy(t, proxy.Config{Upstream: up.srv.URL, Schedule: schedule(t, "at: {1: "+kind+"}")})
				resp, err := model(t, wire, srv.URL, stream, -1).Generate(t.Context(), ask())
				if err != nil {
					t.Fatal(err)
				}
				return resp
			}
			name := fmt.Sprintf("%s/stream=%t", wire, stream)
			t.Run(name+"/truncate", func(t *testing.T) {
				r := run(t, "truncate")
				if got := text(r); r.StopReason != llm.MaxTokens || got == "" || len(got) >= len(realText) || !strings.HasPrefix(realText, got) || len(toolUses(r)) != 0 {
					t.Errorf("stop %s, text %q, %d tools", r.StopReason, got, len(toolUses(r)))
				}
			})
			t.Run(name+"/empty", func(t *testing.T) {
				if r := run(t, "empty"); len(r.Content) != 0 || r.StopReason != llm.EndTurn {
					t.Errorf("reply %+v", r)
				}
			})
			t.Run(name+"/broken_json", func(t *testing.T) {
				r := run(t, "broken_json")
				uses := toolUses(r)
				if len(uses) != 1 || json.Valid(uses[0].Input) && uses[0].Input[0] == '{' {
					t.Fatalf("tool calls %+v", uses)
				}
				if text(r) != realText {
					t.Errorf("text %q: the text is not the fault's", text(r))
				}
			})
			t.Run(name+"/unknown_tool", func(t *testing.T) {
				r := run(t, "unknown_tool")
				if uses := toolUses(r); len(uses) != 1 || uses[0].Name != "read_file_v2" {
					t.Errorf("tool calls %+v, want read_file renamed read_file_v2", uses)
				}
			})
		}
	}
}
