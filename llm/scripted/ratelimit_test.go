package scripted_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

var rlEpoch = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// okHandler stands in for the model behind the limit.
var okHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	w.WriteHeader(http.StatusOK)
})

// hit sends one request to path at the clock's time and returns the reply.
func hit(h http.Handler, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader("{}")))
	return rec
}

func TestRateLimitWindow(t *testing.T) {
	c := clock.NewFake(rlEpoch)
	rl := scripted.RateLimit(okHandler, scripted.RateLimitConfig{Limit: 3, Per: 10 * time.Second, Clock: c})
	var codes []int
	// Three at t=0, one at 4s, one at 9.999s, one at 10s (the first three
	// leave the window), three at 10.5s.
	steps := []time.Duration{0, 0, 0, 4 * time.Second, 5999 * time.Millisecond, 1 * time.Millisecond, 500 * time.Millisecond, 0, 0}
	for _, d := range steps {
		c.Advance(d)
		codes = append(codes, hit(rl, "/v1/messages").Code)
	}
	want := []int{200, 200, 200, 429, 429, 200, 200, 200, 429}
	if diff := cmp.Diff(want, codes); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(scripted.RateLimitStats{Accepted: 6, Limited: 3}, rl.Stats()); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}

func TestRateLimitHeaders(t *testing.T) {
	tests := []struct {
		name      string
		path      string
		noHeaders bool
		want      []map[string]string // the headers of three requests, one second apart
	}{
		{
			name: "the Anthropic route gets Anthropic's headers, the reset an RFC 3339 time",
			path: "/v1/messages",
			want: []map[string]string{
				{"anthropic-ratelimit-requests-limit": "2", "anthropic-ratelimit-requests-remaining": "1",
					"anthropic-ratelimit-requests-reset": "2025-06-01T12:01:00.000Z"},
				{"anthropic-ratelimit-requests-limit": "2", "anthropic-ratelimit-requests-remaining": "0",
					"anthropic-ratelimit-requests-reset": "2025-06-01T12:01:01.000Z"},
				{"anthropic-ratelimit-requests-limit": "2", "anthropic-ratelimit-requests-remaining": "0",
					"anthropic-ratelimit-requests-reset": "2025-06-01T12:01:01.000Z",
					"Retry-After":                        "58", "retry-after-ms": "58000"},
			},
		},
		{
			name: "the OpenAI route gets OpenAI's headers, the reset a duration",
			path: "/v1/chat/completions",
			want: []map[string]string{
				{"x-ratelimit-limit-requests": "2", "x-ratelimit-remaining-requests": "1", "x-ratelimit-reset-requests": "1m0s"},
				{"x-ratelimit-limit-requests": "2", "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1m0s"},
				{"x-ratelimit-limit-requests": "2", "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "59s",
					"Retry-After": "58", "retry-after-ms": "58000"},
			},
		},
		{
			name:      "with no headers only a 429's Retry-After is sent",
			path:      "/v1/chat/completions",
			noHeaders: true,
			want:      []map[string]string{{}, {}, {"Retry-After": "58"}},
		},
	}
	names := []string{
		"anthropic-ratelimit-requests-limit", "anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset",
		"x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests",
		"Retry-After", "retry-after-ms",
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := clock.NewFake(rlEpoch)
			rl := scripted.RateLimit(okHandler, scripted.RateLimitConfig{Limit: 2, NoHeaders: tt.noHeaders, Clock: c})
			var got []map[string]string
			for i := range tt.want {
				if i > 0 {
					c.Advance(time.Second)
				}
				h := hit(rl, tt.path).Header()
				m := map[string]string{}
				for _, n := range names {
					if v := h.Get(n); v != "" {
						m[n] = v
					}
				}
				got = append(got, m)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRateLimitBody(t *testing.T) {
	tests := []struct {
		name, path string
		want       string
	}{
		{"Anthropic's 429 is a rate_limit_error", "/v1/messages", `"type":"rate_limit_error"`},
		{"OpenAI's 429 has the code rate_limit_exceeded", "/v1/chat/completions", `"code":"rate_limit_exceeded"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rl := scripted.RateLimit(okHandler, scripted.RateLimitConfig{Limit: 1, Clock: clock.NewFake(rlEpoch)})
			hit(rl, tt.path)
			rec := hit(rl, tt.path)
			if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), tt.want) {
				t.Errorf("got %d %s, want 429 with %s", rec.Code, rec.Body, tt.want)
			}
		})
	}
}

func TestServeHandlerServesARateLimitedSimulator(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	rl := scripted.RateLimit(okHandler, scripted.RateLimitConfig{Limit: 1, Per: time.Hour})
	go func() { done <- scripted.ServeHandler(ctx, rl, "127.0.0.1:0", pw) }()
	url, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var codes []int
	for range 2 {
		resp, err := http.Post(strings.TrimSpace(url)+"/v1/messages", "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("ServeHandler after cancel: %v", err)
	}
	if diff := cmp.Diff([]int{200, 429}, codes); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}

// TestRateLimitCountsModelCallsOnly: the model list and a local server's
// /props take none of the model's requests; they pass uncounted, so that
// a client asking a server for its window spends none of the limit.
func TestRateLimitCountsModelCallsOnly(t *testing.T) {
	c := clock.NewFake(rlEpoch)
	rl := scripted.RateLimit(okHandler, scripted.RateLimitConfig{Limit: 1, Per: time.Minute, Clock: c})
	for _, path := range []string{"/v1/models", "/props", "/api/show"} {
		rec := httptest.NewRecorder()
		rl.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != 200 || rec.Header().Get("x-ratelimit-remaining-requests") != "" {
			t.Errorf("GET %s: %d %v, want it passed on untouched", path, rec.Code, rec.Header())
		}
	}
	if got := hit(rl, "/v1/chat/completions").Code; got != 200 {
		t.Errorf("the first model call: %d", got)
	}
	if got := hit(rl, "/v1/chat/completions").Code; got != 429 {
		t.Errorf("the second model call: %d, want 429", got)
	}
}
