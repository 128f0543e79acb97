package openai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/nightshift-dev/nightshift/llm/internal/providertest"
)

// testKey is a recognisable fake key: no error text may ever contain it.
const testKey = "sk-proj-test-SECRET-0123456789abcdef"

// wireCall is one tool call of a scripted reply. Args is the raw
// arguments string, streamed as given (it may be cut off).
type wireCall struct {
	ID, Name, Args string
}

// wireReply is a reply the test server sends, as one JSON body or as the
// chunks of a stream, depending on the request. A nil Usage sends none, as
// some compatible servers do.
type wireReply struct {
	Text         string
	Calls        []wireCall
	FinishReason string
	Usage        map[string]int
}

func (rep wireReply) toolCalls() []any {
	var calls []any
	for _, c := range rep.Calls {
		calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args}})
	}
	return calls
}

func (rep wireReply) writeJSON(w http.ResponseWriter) {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if rep.Text != "" {
		msg["content"] = rep.Text
	}
	if len(rep.Calls) > 0 {
		msg["tool_calls"] = rep.toolCalls()
	}
	body := map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "gpt-test",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": rep.FinishReason, "logprobs": nil}},
	}
	if rep.Usage != nil {
		body["usage"] = rep.Usage
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(body)
}

// writeSSE streams the reply as Chat Completions chunks: the role, the
// text in two parts, each tool call's name then its arguments in two
// parts, the finish reason, the usage chunk when asked for, and [DONE].
// Passing stopAfter >= 0 ends the body after that many chunks.
func (rep wireReply) writeSSE(w http.ResponseWriter, includeUsage bool, stopAfter int) {
	w.Header().Set("Content-Type", "text/event-stream")
	var chunks []string
	add := func(choices []any, usage any) {
		c := map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000, "model": "gpt-test", "choices": choices}
		if usage != nil {
			c["usage"] = usage
		}
		b, _ := json.Marshal(c)
		chunks = append(chunks, string(b))
	}
	delta := func(d map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish, "logprobs": nil}}
	}
	add(delta(map[string]any{"role": "assistant", "content": ""}, nil), nil)
	if rep.Text != "" {
		h := len(rep.Text) / 2
		add(delta(map[string]any{"content": rep.Text[:h]}, nil), nil)
		add(delta(map[string]any{"content": rep.Text[h:]}, nil), nil)
	}
	for i, c := range rep.Calls {
		add(delta(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil), nil)
		h := len(c.Args) / 2
		for _, part := range []string{c.Args[:h], c.Args[h:]} {
			add(delta(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": part}}}}, nil), nil)
		}
	}
	add(delta(map[string]any{}, rep.FinishReason), nil)
	if includeUsage && rep.Usage != nil {
		add([]any{}, rep.Usage)
	}
	done := true
	if stopAfter >= 0 && stopAfter < len(chunks) {
		chunks, done = chunks[:stopAfter], false
	}
	for _, c := range chunks {
		fmt.Fprintf(w, "data: %s\n\n", c)
	}
	if done {
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}

// streamRequest is what the server needs to know about a request.
type streamRequest struct {
	Stream        bool `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

func readStreamRequest(r *http.Request) streamRequest {
	var sr streamRequest
	b, _ := io.ReadAll(r.Body)
	json.Unmarshal(b, &sr)
	return sr
}

// serve answers every request with rep, in the format the request asks for.
func serve(rep wireReply) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if sr := readStreamRequest(r); sr.Stream {
			rep.writeSSE(w, sr.StreamOptions.IncludeUsage, -1)
			return
		}
		rep.writeJSON(w)
	}
}

// server starts a test server running h at /v1/chat/completions behind a
// recorder, whose URL is the base URL a client takes (with /v1).
func server(t testing.TB, h http.HandlerFunc) *providertest.Recorder {
	t.Helper()
	rec := providertest.Serve(t, "/v1/chat/completions", h)
	rec.URL += "/v1"
	return rec
}

// setup starts a server running h and returns a Client on it.
func setup(t testing.TB, stream bool, h http.HandlerFunc) (*Client, *providertest.Recorder) {
	t.Helper()
	rec := server(t, h)
	c, err := New(Config{APIKey: testKey, BaseURL: rec.URL, Stream: stream, Headers: map[string]string{"X-Test": "yes"}})
	if err != nil {
		t.Fatal(err)
	}
	return c, rec
}

// modes runs f once without and once with streaming.
func modes(t *testing.T, f func(t *testing.T, stream bool)) {
	for _, stream := range []bool{false, true} {
		name := "as one JSON reply"
		if stream {
			name = "as a stream of chunks"
		}
		t.Run(name, func(t *testing.T) { f(t, stream) })
	}
}
