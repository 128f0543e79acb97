package anthropic

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/providertest"
)

// failure is the part of an *llm.Error a test checks.
type failure struct {
	Class      llm.Class
	Status     int
	Type       string
	RetryAfter time.Duration
}

// mustFail checks that err is a classified error of this provider without
// the API key in it, and returns it.
func mustFail(t *testing.T, err error) *llm.Error {
	t.Helper()
	return providertest.MustFail(t, err, Provider, testKey)
}

func failureOf(e *llm.Error) failure {
	return failure{Class: e.Class, Status: e.Status, Type: e.Type, RetryAfter: e.RetryAfter}
}

// hijack takes over the connection and closes it, after writing prefix.
func hijack(t *testing.T, w http.ResponseWriter, prefix string) {
	if prefix != "" {
		fmt.Fprint(w, prefix)
		w.(http.Flusher).Flush()
	}
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	conn.Close()
}

func TestGenerateClassifiesBrokenReplies(t *testing.T) {
	tests := []struct {
		name    string
		stream  bool
		handler func(t *testing.T) http.HandlerFunc
		want    llm.Class
	}{
		{"a connection dropped before any reply is a connection failure", false, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { hijack(t, w, "") }
		}, llm.Connection},
		{"a streaming connection dropped before any reply is a connection failure", true, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { hijack(t, w, "") }
		}, llm.Connection},
		{"a connection dropped halfway through the JSON body is a connection failure", false, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Length", "400")
				w.WriteHeader(200)
				hijack(t, w, `{"id":"msg_01","type":"message","content":[{"type":"te`)
			}
		}, llm.Connection},
		{"a connection dropped mid-stream is a connection failure", true, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(200)
				hijack(t, w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"claude-test\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n")
			}
		}, llm.Connection},
		{"a stream that ends before message_stop is a connection failure", true, func(t *testing.T) http.HandlerFunc {
			rep := wireReply{Blocks: []wireBlock{{Type: "text", Text: "half an ans"}}, StopReason: "end_turn"}
			return func(w http.ResponseWriter, r *http.Request) { rep.writeSSE(w, 4) }
		}, llm.Connection},
		{"an overloaded_error event mid-stream is overloaded", true, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"claude-test\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n")
				fmt.Fprint(w, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")
			}
		}, llm.Overloaded},
		{"an api_error event mid-stream is transient", true, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}\n\n")
			}
		}, llm.Transient},
		{"a reply that is not JSON is malformed", false, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"id": "msg_01", "content": [`)
			}
		}, llm.Malformed},
		{"an event that is not JSON is malformed", true, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, "event: message_start\ndata: {\"type\":\"message_start\",\"mess\n\n")
			}
		}, llm.Malformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := setup(t, tt.stream, tt.handler(t))
			_, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
			e := mustFail(t, err)
			if e.Class != tt.want {
				t.Errorf("class = %q, want %q (err: %v)", e.Class, tt.want, err)
			}
		})
	}
}

func TestMidStreamErrorKeepsTypeAndNoStatus(t *testing.T) {
	c, _ := setup(t, true, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")
	})
	_, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
	e := mustFail(t, err)
	want := failure{Class: llm.Overloaded, Status: 0, Type: "overloaded_error"}
	if diff := cmp.Diff(want, failureOf(e)); diff != "" {
		t.Errorf("failure (-want +got):\n%s", diff)
	}
}
