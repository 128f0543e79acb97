package proxy_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/internal/cassette"
	"github.com/nightshift-dev/nightshift/internal/proxy"
	"github.com/nightshift-dev/nightshift/redact"
)

// record runs calls through a recording proxy in front of upstream and
// returns the cassette's path.
func record(t *testing.T, upstream, faults string, calls []call) (string, []result) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := cassette.NewWriter(f, cassette.Header{Upstream: upstream}, redact.New())
	if err != nil {
		t.Fatal(err)
	}
	srv, _, log := startProxy(t, proxy.Config{Upstream: upstream, Record: w, Schedule: schedule(t, faults)})
	var out []result
	for _, c := range calls {
		out = append(out, try(t, srv.URL, c))
		<-log.lines // the exchange is recorded (a reset one too, which Close does not wait for)
	}
	srv.Close()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path, out
}

// result is what a client got from one call: the status, the body it
// read, and whether the reply broke off.
type result struct {
	status int
	body   string
	broken bool
}

func try(t *testing.T, base string, c call) result {
	t.Helper()
	req, err := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	resp, err := rawClient.Do(req)
	if err != nil {
		return result{broken: true}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return result{status: resp.StatusCode, body: string(b), broken: err != nil}
}

// TestARecordedSessionReplaysAsItWasReceived records a session from `sim
// serve` through the proxy, both wires, streamed and not, with a token
// count, a model listing and faults, and replays it with a cassette
// server: every call gets what it got when recorded, byte for byte, its
// faults included.
func TestARecordedSessionReplaysAsItWasReceived(t *testing.T) {
	up, _ := simUpstream(t, `
turns:
  - cases:
      - when: {contains: "Read notes.txt"}
        attempts:
          - {status: 429, headers: {retry-after-ms: "5"}}
          - text: "I will read the notes first, then summarise them."
            tool_calls: [{name: read_file, input: {path: notes.txt}}]
      - text: "I will read the notes first, then summarise them."
        tool_calls: [{name: read_file, input: {path: notes.txt}}]
`)
	please := func(body string) string { return withStream(strings.Replace(body, "Read", "Please read", 1)) }
	calls := []call{
		{name: "anthropic, a 429", method: "POST", path: "/v1/messages", body: anthropicBody, header: anthropicHeaders},
		{name: "anthropic, its retry", method: "POST", path: "/v1/messages", body: anthropicBody, header: anthropicHeaders},
		{name: "anthropic streamed, cut by the proxy", method: "POST", path: "/v1/messages", body: please(anthropicBody), header: merge(anthropicHeaders, "X-Sim-Session", "s2")},
		{name: "anthropic streamed, its retry", method: "POST", path: "/v1/messages", body: please(anthropicBody), header: merge(anthropicHeaders, "X-Sim-Session", "s2")},
		{name: "openai streamed", method: "POST", path: "/v1/chat/completions", body: please(openaiBody), header: openaiHeaders},
		{name: "openai, emptied by the proxy", method: "POST", path: "/v1/chat/completions", body: strings.Replace(openaiBody, "Read", "Now read", 1), header: openaiHeaders},
		{name: "count tokens", method: "POST", path: "/v1/messages/count_tokens", body: `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}]}`, header: anthropicHeaders},
		{name: "models", method: "GET", path: "/v1/models", header: anthropicHeaders},
		{name: "reset before the headers", method: "POST", path: "/v1/chat/completions", body: strings.Replace(openaiBody, "Read", "Then read", 1), header: openaiHeaders},
	}
	path, recorded := record(t, up.URL, "at: {3: cut, 6: empty, 9: reset}", calls)
	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != len(calls) {
		t.Fatalf("%d exchanges recorded, want %d", len(c.Exchanges), len(calls))
	}
	var log bytes.Buffer
	replay := httptest.NewServer(cassette.NewServer(c, cassette.ServerConfig{Log: &log}))
	defer replay.Close()
	for i, call := range calls {
		got := try(t, replay.URL, call)
		if got != recorded[i] {
			t.Errorf("%s: replayed %+v, recorded %+v", call.name, got, recorded[i])
		}
	}
	if t.Failed() {
		t.Logf("replay log:\n%s", log.String())
	}
	for i, want := range []result{{status: 429}, {status: 200}, {status: 200, broken: true}, {status: 200}, {status: 200}, {status: 200}, {status: 200}, {status: 200}, {broken: true}} {
		if recorded[i].status != want.status || recorded[i].broken != want.broken {
			t.Errorf("%s: recorded %d broken=%t, want %d broken=%t", calls[i].name, recorded[i].status, recorded[i].broken, want.status, want.broken)
		}
	}
	if !strings.Contains(recorded[5].body, `"finish_reason":"stop"`) || strings.Contains(recorded[5].body, "tool_calls") {
		t.Errorf("the emptied reply: %s", recorded[5].body)
	}
	for _, ex := range c.Exchanges {
		if ex.N == 3 && (ex.Fault != "cut" || ex.Response.End != cassette.EndReset || len(ex.Response.Events) == 0) {
			t.Errorf("exchange 3 = %+v: want the cut, its events and a reset", ex)
		}
		if ex.N == 9 && (ex.Response.Status != 0 || ex.Response.End != cassette.EndReset) {
			t.Errorf("exchange 9 = %+v: want a reset before any header", ex)
		}
	}
}

// TestARecordingHoldsNoKey records calls whose keys the upstream echoes
// in its body, its headers and a cookie: the cassette and the log hold
// none of them, and the key still reached the upstream.
func TestARecordingHoldsNoKey(t *testing.T) {
	const key = "sk-ant-api03-made-up-for-this-test-0123456789"
	const bearer = "sk-proj-made-up-for-this-test-9876543210"
	var seen []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := r.Header.Get("x-api-key") + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		seen = append(seen, k)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Echo", "key="+k)
		w.Header().Set("Set-Cookie", "session="+k)
		w.Header().Set("Anthropic-Organization-Id", "org-made-up")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key `+k+`"}}`)
	}))
	defer up.Close()
	upstream := strings.Replace(up.URL, "http://", "http://user:hunter2-made-up@", 1)
	path, _ := record(t, upstream, "", []call{
		{method: "POST", path: "/v1/messages", body: anthropicBody, header: merge(anthropicHeaders, "x-api-key", key)},
		{method: "POST", path: "/v1/chat/completions?api_key=" + key, body: openaiBody, header: merge(openaiHeaders, "Authorization", "Bearer "+bearer)},
	})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{key, bearer, "hunter2-made-up", "org-made-up", "session="} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("the cassette holds %q:\n%s", secret, data)
		}
	}
	if !bytes.Contains(data, []byte(redact.Mask)) {
		t.Errorf("the cassette shows no redaction:\n%s", data)
	}
	if len(seen) != 2 || seen[0] != key || seen[1] != bearer {
		t.Errorf("the upstream saw keys %q: the key must pass through", seen)
	}
	if _, err := cassette.Load(path); err != nil {
		t.Errorf("the redacted cassette does not load: %v", err)
	}
}

// TestTheLogHoldsNoKey checks the proxy's log lines of calls with keys in
// their headers and query.
func TestTheLogHoldsNoKey(t *testing.T) {
	const key = "sk-made-up-for-the-log-test-5555"
	up := newGoldenUpstream(t)
	srv, _, log := startProxy(t, proxy.Config{Upstream: up.srv.URL})
	try(t, srv.URL, call{method: "POST", path: "/v1/messages?key=" + key, body: anthropicBody, header: merge(anthropicHeaders, "x-api-key", key)})
	line := <-log.lines
	if strings.Contains(line, key) || !strings.Contains(line, "#1 POST /v1/messages stream=false -> forwarded 200") {
		t.Errorf("log line %q", line)
	}
}

// TestAnUnreachableUpstreamIsA502 names the failure in the wire's format.
func TestAnUnreachableUpstreamIsA502(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	srv, _, _ := startProxy(t, proxy.Config{Upstream: dead.URL})
	r := try(t, srv.URL, call{method: "POST", path: "/v1/messages", body: anthropicBody, header: anthropicHeaders})
	if r.status != http.StatusBadGateway || !strings.Contains(r.body, `"type":"api_error"`) || !strings.Contains(r.body, "could not be reached") {
		t.Errorf("got %+v", r)
	}
}

func TestNewRefusesABadUpstream(t *testing.T) {
	for _, u := range []string{"", "api.anthropic.com", "ftp://x", "http://"} {
		if _, err := proxy.New(proxy.Config{Upstream: u}); err == nil {
			t.Errorf("New(%q) took it", u)
		}
	}
	if _, err := proxy.New(proxy.Config{Upstream: "https://api.anthropic.com/v1?beta=true"}); err != nil {
		t.Fatal(err)
	}
}

// TestABodyOverTheCapIsRefusedNotCut: a request over 32 MiB is answered
// 413 and not forwarded; it was cut to 32 MiB and sent upstream as a
// different request.
func TestABodyOverTheCapIsRefusedNotCut(t *testing.T) {
	up := newGoldenUpstream(t)
	srv, _, log := startProxy(t, proxy.Config{Upstream: up.srv.URL})
	big := `{"model":"gpt-4.1","messages":[{"role":"user","content":"` + strings.Repeat("a", 32<<20) + `"}]}`
	r := try(t, srv.URL, call{method: "POST", path: "/v1/chat/completions", body: big, header: openaiHeaders})
	if r.status != http.StatusRequestEntityTooLarge || !strings.Contains(r.body, "over 32 MiB") {
		t.Errorf("got %d %.200s", r.status, r.body)
	}
	<-log.lines
	if n := len(up.got()); n != 0 {
		t.Errorf("the upstream got %d requests, want none", n)
	}
}
