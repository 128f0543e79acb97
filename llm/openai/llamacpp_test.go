package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/window"
)

// The recorded exchanges of a real llama.cpp server (testdata/llama.cpp,
// whose README says how they were made): the request sent and the
// response as it came, byte for byte.

// exchange is one recorded case.
type exchange struct {
	Request struct {
		Method string          `json:"method"`
		Path   string          `json:"path"`
		Body   json.RawMessage `json:"body"`
	} `json:"request"`
	Response struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
	} `json:"response"`
	body []byte
}

func recorded(t *testing.T, name string) *exchange {
	t.Helper()
	dir := filepath.Join("testdata", "llama.cpp")
	meta, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var x exchange
	if err := json.Unmarshal(meta, &x); err != nil {
		t.Fatalf("%s.json: %v", name, err)
	}
	if x.body, err = os.ReadFile(filepath.Join(dir, name+".body")); err != nil {
		t.Fatal(err)
	}
	return &x
}

// write answers as the server did.
func (x *exchange) write(w http.ResponseWriter) {
	for k, v := range x.Response.Headers {
		if k != "Transfer-Encoding" {
			w.Header().Set(k, v)
		}
	}
	w.WriteHeader(x.Response.Status)
	w.Write(x.body)
}

// recordedRequest is the recorded request's body as a provider-neutral
// request, and whether it streamed.
func (x *exchange) request(t *testing.T) (*llm.Request, bool) {
	t.Helper()
	var body struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		Messages  []struct {
			Role, Content string
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
		Stream bool `json:"stream"`
	}
	if err := json.Unmarshal(x.Request.Body, &body); err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{Model: body.Model, MaxTokens: body.MaxTokens}
	for _, m := range body.Messages {
		if m.Role == "system" {
			req.System = m.Content
			continue
		}
		req.Messages = append(req.Messages, llm.UserText(m.Content))
	}
	for _, tl := range body.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: tl.Function.Name, Description: tl.Function.Description, InputSchema: tl.Function.Parameters})
	}
	return req, body.Stream
}

// sameFields compares the fields of the request the client sent that the
// recording holds, so that the replay is of the request llama.cpp saw.
func sameFields(t *testing.T, recorded, sent []byte) {
	t.Helper()
	var want, got map[string]any
	if err := json.Unmarshal(recorded, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(sent, &got); err != nil {
		t.Fatal(err)
	}
	// A stream that is not asked for is false, said or not.
	for _, m := range []map[string]any{want, got} {
		if m["stream"] == nil {
			m["stream"] = false
		}
	}
	for _, k := range []string{"model", "max_tokens", "messages", "stream", "stream_options"} {
		if _, ok := want[k]; !ok && k == "stream_options" {
			continue // not recorded
		}
		if !reflect.DeepEqual(want[k], got[k]) {
			t.Errorf("the request's %s = %v, the recording's %v", k, got[k], want[k])
		}
	}
	// The tools' names, descriptions and schemas as recorded.
	wt, _ := json.Marshal(want["tools"])
	gt, _ := json.Marshal(toolsOf(got["tools"]))
	if string(wt) != string(gt) && want["tools"] != nil {
		t.Errorf("the request's tools = %s, the recording's %s", gt, wt)
	}
}

// toolsOf keeps of each tool what the recording holds.
func toolsOf(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	var out []any
	for _, e := range list {
		m, _ := e.(map[string]any)
		fn, _ := m["function"].(map[string]any)
		out = append(out, map[string]any{"type": m["type"], "function": map[string]any{
			"name": fn["name"], "description": fn["description"], "parameters": fn["parameters"]}})
	}
	return out
}

// replay sends the recorded request through the provider to a server
// answering with the recorded response.
func replay(t *testing.T, name string) (*llm.Response, error) {
	t.Helper()
	x := recorded(t, name)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != x.Request.Method || r.URL.Path != x.Request.Path {
			t.Errorf("%s %s, the recording's %s %s", r.Method, r.URL.Path, x.Request.Method, x.Request.Path)
		}
		sent, _ := io.ReadAll(r.Body)
		sameFields(t, x.Request.Body, sent)
		x.write(w)
	}))
	defer srv.Close()
	req, stream := x.request(t)
	c, err := New(Config{BaseURL: srv.URL + "/v1", Stream: stream})
	if err != nil {
		t.Fatal(err)
	}
	return c.Generate(context.Background(), req)
}

// TestRecordedLlamaCppExchanges: each recorded answer of a real llama.cpp
// server is read as the case it records (issue 28).
func TestRecordedLlamaCppExchanges(t *testing.T) {
	type want struct {
		stop           llm.StopReason
		text           string // a prefix of the text
		markup         bool   // the text holds raw tool-call markup
		tools          []string
		validInput     bool // every tool call's input is whole JSON
		in, out, cache int64
	}
	for _, tc := range []struct {
		name string
		want want
	}{
		{"text", want{stop: llm.MaxTokens, text: "<tool_call>\n", markup: true, in: 38, out: 64, cache: 6}},
		{"text-stream", want{stop: llm.MaxTokens, text: "<tool_call>\n", markup: true, in: 38, out: 64, cache: 37}},
		{"tool-call", want{stop: llm.ToolUseStop, tools: []string{"write_file"}, validInput: true, in: 266, out: 53}},
		{"tool-call-stream", want{stop: llm.ToolUseStop, tools: []string{"read_file"}, validInput: true, in: 266, out: 41, cache: 265}},
		{"tool-call-cut-late", want{stop: llm.MaxTokens, tools: []string{"write_file"}, in: 266, out: 24, cache: 265}},
		{"tool-call-cut-late-stream", want{stop: llm.MaxTokens, tools: []string{"write_file"}, in: 266, out: 24, cache: 265}},
		{"tool-call-cut-early", want{stop: llm.MaxTokens, text: "<tool_call>\n {\"name\":\"", markup: true, in: 266, out: 8, cache: 265}},
		// Streaming, the early cut sends nothing at all.
		{"tool-call-cut-early-stream", want{stop: llm.MaxTokens, in: 266, out: 8, cache: 265}},
		// The window is full: 416 + 96 = 512, far below max_tokens 4096.
		{"length-at-window", want{stop: llm.MaxTokens, tools: []string{"write_file", "write_file"}, validInput: true, in: 416, out: 96}},
		// Streamed, the same prompt's reply ended before the window.
		{"length-at-window-stream", want{stop: llm.ToolUseStop, tools: []string{"write_file"}, validInput: true, in: 416, out: 62, cache: 415}},
		{"tools-ignored", want{stop: llm.EndTurn, text: " sempre", in: 37, out: 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := replay(t, tc.name)
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			w := tc.want
			msg := resp.Message()
			if resp.StopReason != w.stop {
				t.Errorf("stop %s, want %s", resp.StopReason, w.stop)
			}
			if !strings.HasPrefix(msg.Text(), w.text) || (w.text == "") != (msg.Text() == "") {
				t.Errorf("text %q, want it to begin %q", msg.Text(), w.text)
			}
			if llm.HasToolCallMarkup(msg.Text()) != w.markup {
				t.Errorf("raw tool-call markup in %q: %v, want %v", msg.Text(), !w.markup, w.markup)
			}
			var names []string
			for _, u := range msg.ToolUses() {
				names = append(names, u.Name)
				if json.Valid(u.Input) != w.validInput {
					t.Errorf("%s's input %s: valid %v, want %v", u.Name, u.Input, !w.validInput, w.validInput)
				}
			}
			if !reflect.DeepEqual(names, w.tools) {
				t.Errorf("tool calls %v, want %v", names, w.tools)
			}
			if u := resp.Usage; u.InputTokens != w.in || u.OutputTokens != w.out || u.CacheReadTokens != w.cache {
				t.Errorf("usage %+v, want %d in (%d cached), %d out", u, w.in, w.cache, w.out)
			}
		})
	}
	for _, name := range []string{"context-overflow", "context-overflow-stream"} {
		t.Run(name+" is a context overflow that names the window", func(t *testing.T) {
			_, err := replay(t, name)
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("Generate: %v, want an *llm.Error", err)
			}
			if e.Class != llm.ContextOverflow || e.Status != 400 || e.Window != 512 || e.PromptTokens != 1210 {
				t.Errorf("class %s status %d window %d prompt %d, want context-overflow 400, 512 and 1210", e.Class, e.Status, e.Window, e.PromptTokens)
			}
			if e.Class.Retryable() {
				t.Error("an overflow is retried")
			}
		})
	}
}

// TestRecordedLlamaCppProps: the window and the tool support are read
// from llama.cpp's /props as it answers them, and from /v1/models when
// there is no /props.
func TestRecordedLlamaCppProps(t *testing.T) {
	serve := func(t *testing.T, routes map[string]string) *Client {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			name, ok := routes[r.URL.Path]
			if !ok {
				http.NotFound(w, r)
				return
			}
			recorded(t, name).write(w)
		}))
		t.Cleanup(srv.Close)
		c, err := New(Config{BaseURL: srv.URL + "/v1", Model: "tool-qwen25.gguf"})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		name  string
		props string
		want  window.Info
	}{
		{"a server started with -c 8192", "props-qwen", window.Info{Tokens: 8192, From: window.FromLlamaCpp}},
		{"a server started with -c 512", "props-window-512", window.Info{Tokens: 512, From: window.FromLlamaCpp}},
		{"Gemma 3's template ignores tools", "props-gemma3-no-tools", window.Info{Tokens: 4096, From: window.FromLlamaCpp, ToolsIgnored: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := serve(t, map[string]string{"/v1/models": "models", "/props": tc.props})
			got, err := c.AskWindow(context.Background())
			if err != nil || got != tc.want {
				t.Errorf("AskWindow = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	t.Run("without /props, the model list's n_ctx", func(t *testing.T) {
		c := serve(t, map[string]string{"/v1/models": "models"})
		got, err := c.AskWindow(context.Background())
		if want := (window.Info{Tokens: 8192, From: window.FromModels}); err != nil || got != want {
			t.Errorf("AskWindow = %+v, %v; want %+v", got, err, want)
		}
	})
}
