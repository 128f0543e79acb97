package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
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

func TestGenerateClassifiesErrorStatuses(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		errType string
		message string
		header  map[string]string
		want    failure
	}{
		{"429 with retry-after is rate-limited and says how long to wait", 429, "rate_limit_error", "Number of requests has exceeded your rate limit",
			map[string]string{"retry-after": "2"}, failure{llm.RateLimited, 429, "rate_limit_error", 2 * time.Second}},
		{"429 with retry-after-ms prefers the milliseconds", 429, "rate_limit_error", "slow down",
			map[string]string{"retry-after": "2", "retry-after-ms": "1500"}, failure{llm.RateLimited, 429, "rate_limit_error", 1500 * time.Millisecond}},
		{"529 is overloaded", 529, "overloaded_error", "Overloaded", nil, failure{llm.Overloaded, 529, "overloaded_error", 0}},
		{"500 is transient", 500, "api_error", "Internal server error", nil, failure{llm.Transient, 500, "api_error", 0}},
		{"503 is overloaded", 503, "api_error", "Service unavailable", nil, failure{llm.Overloaded, 503, "api_error", 0}},
		{"400 is a bad request", 400, "invalid_request_error", "messages: field required", nil, failure{llm.BadRequest, 400, "invalid_request_error", 0}},
		{"400 about the credit balance is quota", 400, "invalid_request_error", "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.",
			nil, failure{llm.Quota, 400, "invalid_request_error", 0}},
		{"401 is auth", 401, "authentication_error", "invalid x-api-key", nil, failure{llm.Auth, 401, "authentication_error", 0}},
		{"403 is auth", 403, "permission_error", "Your API key does not have permission to use the specified resource.", nil, failure{llm.Auth, 403, "permission_error", 0}},
		{"404 is a bad request", 404, "not_found_error", "model: claude-nope", nil, failure{llm.BadRequest, 404, "not_found_error", 0}},
		{"413 is a bad request", 413, "request_too_large", "Request exceeds the maximum allowed number of bytes.", nil, failure{llm.BadRequest, 413, "request_too_large", 0}},
		{"422 is a bad request", 422, "invalid_request_error", "unprocessable", nil, failure{llm.BadRequest, 422, "invalid_request_error", 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			modes(t, func(t *testing.T, stream bool) {
				c, _ := setup(t, stream, errorReply(tt.status, tt.errType, tt.message, tt.header))
				_, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
				e := mustFail(t, err)
				if diff := cmp.Diff(tt.want, failureOf(e)); diff != "" {
					t.Errorf("failure (-want +got):\n%s", diff)
				}
				if e.Message != tt.message {
					t.Errorf("message = %q, want the provider's %q", e.Message, tt.message)
				}
				if e.Header == nil {
					t.Errorf("the failed response's headers were not kept")
				}
			})
		})
	}
}

func TestGenerateMakesExactlyOneRequestPerCall(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		c, rec := setup(t, stream, errorReply(500, "api_error", "boom", nil))
		_, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
		mustFail(t, err)
		if n := rec.count(); n != 1 {
			t.Errorf("the server saw %d requests for one Generate, want 1 (the SDK must not retry)", n)
		}
	})
}

func TestGenerateNeverShowsTheAPIKey(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		// Some servers echo the key they refused; it must not come back.
		c, _ := setup(t, stream, errorReply(401, "authentication_error", "invalid x-api-key: "+testKey, nil))
		_, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
		e := mustFail(t, err)
		if e.Class != llm.Auth {
			t.Errorf("class = %q, want auth", e.Class)
		}
	})
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

func TestGenerateClassifiesTheCallersContext(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		t.Run("a canceled call is canceled", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c, _ := setup(t, stream, func(w http.ResponseWriter, r *http.Request) {
				cancel()
				<-r.Context().Done()
			})
			_, err := c.Generate(ctx, &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
			if e := mustFail(t, err); e.Class != llm.Canceled {
				t.Errorf("class = %q, want canceled", e.Class)
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("errors.Is(err, context.Canceled) is false")
			}
		})
		t.Run("a call past its deadline is a timeout", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			c, _ := setup(t, stream, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
			_, err := c.Generate(ctx, &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
			if e := mustFail(t, err); e.Class != llm.Timeout {
				t.Errorf("class = %q, want timeout", e.Class)
			}
		})
	})
}

func TestGenerateClassifiesARefusedConnection(t *testing.T) {
	// A closed server's address refuses the dial.
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	c, err := New(Config{APIKey: testKey, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
	if e := mustFail(t, err); e.Class != llm.Connection {
		t.Errorf("class = %q, want connection (err: %v)", e.Class, err)
	}
}
