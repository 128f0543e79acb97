package anthropic

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/nightshift-dev/nightshift/llm/internal/providertest"
)

// testKey is a recognisable fake key: no error text may ever contain it.
const testKey = "sk-ant-test-SECRET-0123456789abcdef"

// wireBlock is one content block of a scripted reply. Input is the raw JSON
// of a tool call's input, streamed as given (it may be cut off).
type wireBlock struct {
	Type, Text, ID, Name, Input string
}

// wireReply is a reply the test server sends, as one JSON body or as the
// server-sent events of the streaming API, depending on the request.
type wireReply struct {
	Blocks     []wireBlock
	StopReason string
	Usage      map[string]int
}

func (rep wireReply) usage() map[string]int {
	if rep.Usage == nil {
		return map[string]int{"input_tokens": 10, "output_tokens": 5}
	}
	return rep.Usage
}

func (rep wireReply) writeJSON(w http.ResponseWriter) {
	content := []any{}
	for _, b := range rep.Blocks {
		switch b.Type {
		case "text":
			content = append(content, map[string]any{"type": "text", "text": b.Text})
		case "tool_use":
			content = append(content, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": json.RawMessage(b.Input)})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
		"content": content, "stop_reason": rep.StopReason, "stop_sequence": nil,
		"usage": rep.usage(),
	})
}

// writeSSE streams the reply the way the API does: message_start, each
// block as start, deltas (text and tool input split in two) and stop,
// message_delta with the stop reason and output usage, message_stop.
// Passing stopAfter >= 0 ends the body after that many events.
func (rep wireReply) writeSSE(w http.ResponseWriter, stopAfter int) {
	w.Header().Set("Content-Type", "text/event-stream")
	u := rep.usage()
	var events [][2]string
	add := func(name string, data any) {
		b, _ := json.Marshal(data)
		events = append(events, [2]string{name, string(b)})
	}
	add("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": u["input_tokens"], "cache_read_input_tokens": u["cache_read_input_tokens"], "cache_creation_input_tokens": u["cache_creation_input_tokens"], "output_tokens": 1},
	}})
	for i, b := range rep.Blocks {
		switch b.Type {
		case "text":
			add("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			h := len(b.Text) / 2
			for _, part := range []string{b.Text[:h], b.Text[h:]} {
				add("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": part}})
			}
		case "tool_use":
			add("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			h := len(b.Input) / 2
			for _, part := range []string{b.Input[:h], b.Input[h:]} {
				add("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		}
		add("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	add("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": rep.StopReason, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": u["output_tokens"]}})
	add("message_stop", map[string]any{"type": "message_stop"})
	if stopAfter >= 0 && stopAfter < len(events) {
		events = events[:stopAfter]
	}
	// A ping between events, as the API sends them, must be ignored.
	fmt.Fprint(w, "event: ping\ndata: {\"type\": \"ping\"}\n\n")
	for _, ev := range events {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev[0], ev[1])
	}
}

// serve answers every request with rep, in the format the request asks for.
func serve(rep wireReply) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if wantsStream(r) {
			rep.writeSSE(w, -1)
			return
		}
		rep.writeJSON(w)
	}
}

// wantsStream reports whether the request body has "stream": true. The
// recorder has already buffered the body, so it is read from there.
func wantsStream(r *http.Request) bool {
	var body struct {
		Stream bool `json:"stream"`
	}
	b, _ := io.ReadAll(r.Body)
	json.Unmarshal(b, &body)
	return body.Stream
}

// setup starts a test server running h behind a recorder and returns a
// Client on it, streaming or not.
func setup(t testing.TB, stream bool, h http.HandlerFunc) (*Client, *providertest.Recorder) {
	t.Helper()
	rec := providertest.Serve(t, "/v1/messages", h)
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
			name = "as a stream of events"
		}
		t.Run(name, func(t *testing.T) { f(t, stream) })
	}
}
