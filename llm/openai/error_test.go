package openai

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

func TestGenerateReadsCompatibleServersErrorBodies(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   providertest.Failure
	}{
		{"Ollama's plain error string", 404, `{"error":"model \"llama9\" not found, try pulling it first"}`, providertest.Failure{Class: llm.BadRequest, Status: 404}},
		{"vLLM's numeric code", 400, `{"object":"error","message":"max_tokens is too large","type":"BadRequestError","param":null,"code":400}`,
			providertest.Failure{Class: llm.BadRequest, Status: 400, Type: "BadRequestError"}},
		{"a proxy's HTML page", 502, `<html><body>502 Bad Gateway</body></html>`, providertest.Failure{Class: llm.Transient, Status: 502}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := setup(t, false, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			})
			_, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
			e := mustFail(t, err)
			if diff := cmp.Diff(tt.want, providertest.FailureOf(e)); diff != "" {
				t.Errorf("failure (-want +got):\n%s", diff)
			}
			if e.Message == "" {
				t.Errorf("the body's message was lost")
			}
		})
	}
}

const firstChunk = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}` + "\n\n"

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
				providertest.Hijack(t, w, `{"id":"c","object":"chat.completion","choices":[{"index":0,"mess`)
			}
		}, llm.Connection},
		{"a connection dropped mid-stream is a connection failure", true, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(200)
				providertest.Hijack(t, w, firstChunk)
			}
		}, llm.Connection},
		{"a stream that ends before a finish_reason is a connection failure", true, func(t *testing.T) http.HandlerFunc {
			rep := wireReply{Text: "half an answer", FinishReason: "stop"}
			return func(w http.ResponseWriter, r *http.Request) { rep.writeSSE(w, true, 2) }
		}, llm.Connection},
		{"a server_error mid-stream is transient", true, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, firstChunk)
				fmt.Fprint(w, `data: {"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`+"\n\n")
			}
		}, llm.Transient},
		{"a rate limit mid-stream is rate-limited", true, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, `data: {"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`+"\n\n")
			}
		}, llm.RateLimited},
		{"a reply that is not JSON is malformed", false, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"id": "c", "choices": [`)
			}
		}, llm.Malformed},
		{"a reply without choices is malformed", false, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"id": "c", "object": "chat.completion", "choices": []}`)
			}
		}, llm.Malformed},
		{"a chunk that is not JSON is malformed", true, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, "data: {\"id\":\"c\",\"choi\n\n")
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
