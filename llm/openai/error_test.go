package openai

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
		name          string
		status        int
		errType, code string
		message       string
		header        map[string]string
		want          failure
	}{
		{"429 with retry-after is rate-limited and says how long to wait", 429, "requests", "rate_limit_exceeded", "Rate limit reached for gpt-test",
			map[string]string{"retry-after": "3"}, failure{llm.RateLimited, 429, "rate_limit_exceeded", 3 * time.Second}},
		{"429 with retry-after-ms prefers the milliseconds", 429, "tokens", "rate_limit_exceeded", "Rate limit reached",
			map[string]string{"retry-after": "3", "retry-after-ms": "250"}, failure{llm.RateLimited, 429, "rate_limit_exceeded", 250 * time.Millisecond}},
		{"429 insufficient_quota is quota, not a rate limit", 429, "insufficient_quota", "insufficient_quota",
			"You exceeded your current quota, please check your plan and billing details.", nil, failure{llm.Quota, 429, "insufficient_quota", 0}},
		{"500 is transient", 500, "server_error", "", "The server had an error while processing your request.", nil, failure{llm.Transient, 500, "server_error", 0}},
		{"503 is overloaded", 503, "server_error", "", "The engine is currently overloaded, please try again later.", nil, failure{llm.Overloaded, 503, "server_error", 0}},
		{"529 is overloaded", 529, "", "", "overloaded", nil, failure{llm.Overloaded, 529, "", 0}},
		{"400 is a bad request", 400, "invalid_request_error", "context_length_exceeded", "This model's maximum context length is 128000 tokens.", nil,
			failure{llm.BadRequest, 400, "context_length_exceeded", 0}},
		{"401 is auth", 401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.", nil, failure{llm.Auth, 401, "invalid_api_key", 0}},
		{"403 is auth", 403, "invalid_request_error", "unsupported_country_region_territory", "Country, region, or territory not supported", nil,
			failure{llm.Auth, 403, "unsupported_country_region_territory", 0}},
		{"404 is a bad request", 404, "invalid_request_error", "model_not_found", "The model `gpt-nope` does not exist.", nil, failure{llm.BadRequest, 404, "model_not_found", 0}},
		{"413 is a bad request", 413, "invalid_request_error", "", "Request too large.", nil, failure{llm.BadRequest, 413, "invalid_request_error", 0}},
		{"422 is a bad request", 422, "invalid_request_error", "", "Unprocessable.", nil, failure{llm.BadRequest, 422, "invalid_request_error", 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			modes(t, func(t *testing.T, stream bool) {
				c, _ := setup(t, stream, errorReply(tt.status, tt.errType, tt.code, tt.message, tt.header))
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

func TestGenerateReadsCompatibleServersErrorBodies(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   failure
	}{
		{"Ollama's plain error string", 404, `{"error":"model \"llama9\" not found, try pulling it first"}`, failure{Class: llm.BadRequest, Status: 404}},
		{"vLLM's numeric code", 400, `{"object":"error","message":"max_tokens is too large","type":"BadRequestError","param":null,"code":400}`,
			failure{Class: llm.BadRequest, Status: 400, Type: "BadRequestError"}},
		{"a proxy's HTML page", 502, `<html><body>502 Bad Gateway</body></html>`, failure{Class: llm.Transient, Status: 502}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := setup(t, false, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			})
			_, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
			e := mustFail(t, err)
			if diff := cmp.Diff(tt.want, failureOf(e)); diff != "" {
				t.Errorf("failure (-want +got):\n%s", diff)
			}
			if e.Message == "" {
				t.Errorf("the body's message was lost")
			}
		})
	}
}

func TestGenerateMakesExactlyOneRequestPerCall(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		c, rec := setup(t, stream, errorReply(500, "server_error", "", "boom", nil))
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
		c, _ := setup(t, stream, errorReply(401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided: "+testKey, nil))
		_, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
		if e := mustFail(t, err); e.Class != llm.Auth {
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

const firstChunk = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}` + "\n\n"

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
				hijack(t, w, `{"id":"c","object":"chat.completion","choices":[{"index":0,"mess`)
			}
		}, llm.Connection},
		{"a connection dropped mid-stream is a connection failure", true, func(t *testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(200)
				hijack(t, w, firstChunk)
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
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	c, err := New(Config{APIKey: testKey, BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
	if e := mustFail(t, err); e.Class != llm.Connection {
		t.Errorf("class = %q, want connection (err: %v)", e.Class, err)
	}
}
