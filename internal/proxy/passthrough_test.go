package proxy_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/internal/proxy"
)

// call is one request of the pass-through table.
type call struct {
	name, method, path, body string
	header                   map[string]string
	// golden is the file the reply's body must equal, byte for byte; ""
	// for a gzipped reply, which must equal the upstream's own bytes.
	golden string
	status int
}

var anthropicHeaders = map[string]string{
	"x-api-key": "sk-ant-test-made-up-key-0001", "anthropic-version": "2023-06-01",
	"anthropic-beta": "prompt-caching-2024-07-31", "User-Agent": "Anthropic/JS 0.60.0",
}

var openaiHeaders = map[string]string{
	"Authorization": "Bearer sk-test-made-up-key-0002", "OpenAI-Beta": "assistants=v2", "User-Agent": "OpenAI/JS 6.0.0",
}

const anthropicBody = `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"Read notes.txt"}]}`
const openaiBody = `{"model":"gpt-4.1","messages":[{"role":"user","content":"Read notes.txt"}]}`

func withStream(body string) string {
	return strings.Replace(body, `{"model"`, `{"stream":true,"model"`, 1)
}

func merge(a map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

var passCalls = []call{
	{name: "anthropic messages", method: "POST", path: "/v1/messages", body: anthropicBody, header: anthropicHeaders, golden: "anthropic.json", status: 200},
	{name: "anthropic messages streamed", method: "POST", path: "/v1/messages", body: withStream(anthropicBody), header: anthropicHeaders, golden: "anthropic.sse", status: 200},
	{name: "anthropic count_tokens", method: "POST", path: "/v1/messages/count_tokens", body: `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}]}`, header: anthropicHeaders, golden: "count_tokens.json", status: 200},
	{name: "anthropic models", method: "GET", path: "/v1/models", header: anthropicHeaders, golden: "models-anthropic.json", status: 200},
	{name: "anthropic 429 with its retry-after", method: "POST", path: "/v1/messages", body: anthropicBody, header: merge(anthropicHeaders, "X-Test-Status", "429"), golden: "error-429.json", status: 429},
	{name: "openai chat completions", method: "POST", path: "/v1/chat/completions", body: openaiBody, header: openaiHeaders, golden: "openai.json", status: 200},
	{name: "openai chat completions streamed", method: "POST", path: "/v1/chat/completions", body: withStream(openaiBody), header: openaiHeaders, golden: "openai.sse", status: 200},
	{name: "openai models", method: "GET", path: "/v1/models", header: openaiHeaders, golden: "models-openai.json", status: 200},
	{name: "openai chat completions gzipped", method: "POST", path: "/v1/chat/completions?api-version=2024-10-21", body: openaiBody, header: merge(openaiHeaders, "Accept-Encoding", "gzip"), status: 200},
}

// headersThatMatter are the reply headers a client reads.
var headersThatMatter = []string{
	"Content-Type", "Content-Encoding", "Content-Length", "Cache-Control", "Retry-After", "Request-Id", "X-Request-Id",
	"Anthropic-Ratelimit-Requests-Remaining", "Anthropic-Ratelimit-Requests-Reset",
	"X-Ratelimit-Remaining-Requests", "Openai-Processing-Ms",
}

func do(t *testing.T, base string, c call) (*http.Response, []byte) {
	t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequest(c.method, base+c.path, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// TestWithoutFaultsTheProxyIsTransparent sends each call to the golden
// upstream directly and through the proxy: the reply through the proxy
// has the same status, the headers that matter and the very bytes of the
// golden file (or, gzipped, of the upstream's own reply), and the upstream
// receives the same request either way, key and version headers included.
func TestWithoutFaultsTheProxyIsTransparent(t *testing.T) {
	up := newGoldenUpstream(t)
	srv, _, _ := startProxy(t, proxy.Config{Upstream: up.srv.URL})
	for _, c := range passCalls {
		t.Run(c.name, func(t *testing.T) {
			before := len(up.got())
			direct, directBody := do(t, up.srv.URL, c)
			via, viaBody := do(t, srv.URL, c)
			if via.StatusCode != c.status || direct.StatusCode != c.status {
				t.Fatalf("status %d through the proxy, %d directly, want %d", via.StatusCode, direct.StatusCode, c.status)
			}
			if c.golden != "" && !bytes.Equal(viaBody, golden(t, c.golden)) {
				t.Errorf("the body through the proxy differs from %s:\n%s", c.golden, cmp.Diff(string(golden(t, c.golden)), string(viaBody)))
			}
			if !bytes.Equal(viaBody, directBody) {
				t.Errorf("the body through the proxy differs from the upstream's own (%d and %d bytes)", len(viaBody), len(directBody))
			}
			for _, h := range headersThatMatter {
				if via.Header.Get(h) != direct.Header.Get(h) {
					t.Errorf("header %s: %q through the proxy, %q directly", h, via.Header.Get(h), direct.Header.Get(h))
				}
			}
			got := up.got()[before:]
			if len(got) != 2 {
				t.Fatalf("the upstream got %d requests, want 2", len(got))
			}
			d, v := got[0], got[1]
			if d.Method != v.Method || d.Path != v.Path || d.Query != v.Query || !bytes.Equal(d.Body, v.Body) {
				t.Errorf("the upstream got %s %s?%s %q through the proxy, %s %s?%s %q directly", v.Method, v.Path, v.Query, v.Body, d.Method, d.Path, d.Query, d.Body)
			}
			for k := range c.header {
				if v.Header.Get(k) != d.Header.Get(k) {
					t.Errorf("the upstream got %s: %q through the proxy, %q directly", k, v.Header.Get(k), d.Header.Get(k))
				}
			}
		})
	}
}

// TestTheProxyStreamsEachEventAsItComes holds the upstream's stream after
// each event until the client has read that event through the proxy: a
// proxy that buffered the stream would never deliver the first.
func TestTheProxyStreamsEachEventAsItComes(t *testing.T) {
	up := newGoldenUpstream(t)
	up.release = make(chan struct{})
	srv, _, _ := startProxy(t, proxy.Config{Upstream: up.srv.URL})
	for _, wire := range []string{"anthropic", "openai"} {
		t.Run(wire, func(t *testing.T) {
			c := passCalls[1]
			if wire == "openai" {
				c = passCalls[6]
			}
			req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
			for k, v := range c.header {
				req.Header.Set(k, v)
			}
			resp, err := rawClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			want := strings.SplitAfter(string(golden(t, wire+".sse")), "\n\n")
			r := bufio.NewReader(resp.Body)
			for i, ev := range want {
				if ev == "" {
					continue
				}
				got := readEvent(t, r)
				if got != ev {
					t.Fatalf("event %d: got %q, want %q", i, got, ev)
				}
				if i < len(want)-2 {
					up.release <- struct{}{} // the next event may go
				}
			}
		})
	}
}

// readEvent reads one server-sent event, its blank line included.
func readEvent(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	var b strings.Builder
	for {
		line, err := r.ReadString('\n')
		b.WriteString(line)
		if err != nil {
			t.Fatalf("after %q: %v", b.String(), err)
		}
		if line == "\n" {
			return b.String()
		}
	}
}
