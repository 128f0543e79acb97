package anthropic

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/providertest"
)

// mustFail checks that err is a classified error of this provider without
// the API key in it, and returns it.
func mustFail(t *testing.T, err error) *llm.Error {
	t.Helper()
	return providertest.MustFail(t, err, Provider, testKey)
}

func TestGenerateClassifiesBrokenReplies(t *testing.T) {
	tests := []struct {
		name    string
		stream  bool
		handler func(t *testing.T) http.HandlerFunc
		want    llm.Class
	}{
		{"a connection dropped before any reply is a connection failure", false, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { providertest.Hijack(t, w, "") }
		}, llm.Connection},
		{"a streaming connection dropped before any reply is a connection failure", true, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { providertest.Hijack(t, w, "") }
		}, llm.Connection},
		{"a connection dropped halfway through the JSON body is a connection failure", false, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Length", "400")
				w.WriteHeader(200)
				providertest.Hijack(t, w, `{"id":"msg_01","type":"message","content":[{"type":"te`)
			}
		}, llm.Connection},
		{"a connection dropped mid-stream is a connection failure", true, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(200)
				providertest.Hijack(t, w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"claude-test\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n")
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
	want := providertest.Failure{Class: llm.Overloaded, Status: 0, Type: "overloaded_error"}
	if diff := cmp.Diff(want, providertest.FailureOf(e)); diff != "" {
		t.Errorf("failure (-want +got):\n%s", diff)
	}
}
