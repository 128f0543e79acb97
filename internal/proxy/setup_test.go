package proxy_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/nightshift-dev/nightshift/internal/proxy"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// golden reads a file of testdata/passthrough: a reply as the providers
// send it.
func golden(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "passthrough", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// received is a request as the upstream received it.
type received struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
}

// goldenUpstream is an httptest upstream that answers both wires with the
// golden replies, streams event by event (each flushed), and keeps every
// request it received. A request with X-Test-Status: 429 gets the golden
// rate-limit error; one that accepts gzip gets its reply gzipped.
type goldenUpstream struct {
	t        testing.TB
	srv      *httptest.Server
	mu       sync.Mutex
	requests []received
	// release, when set, is waited on before each event after the first:
	// the test lets the stream go on.
	release chan struct{}
}

func newGoldenUpstream(t testing.TB) *goldenUpstream {
	u := &goldenUpstream{t: t}
	u.srv = httptest.NewServer(u)
	t.Cleanup(u.srv.Close)
	return u
}

func (u *goldenUpstream) got() []received {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]received(nil), u.requests...)
}

func (u *goldenUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.requests = append(u.requests, received{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), body})
	u.mu.Unlock()
	route := scripted.RouteOf(r.URL.Path, r.Header)
	stream := bytes.Contains(body, []byte(`"stream":true`))
	h := w.Header()
	if route.Wire == "anthropic" {
		h.Set("request-id", "req_011CSHoEeqs5C35K2UUqR7Fy")
		h.Set("anthropic-ratelimit-requests-remaining", "49")
		h.Set("anthropic-ratelimit-requests-reset", "2026-11-29T22:00:01Z")
	} else {
		h.Set("x-request-id", "req_8a8c4b5f0e1d4b7a9c2e")
		h.Set("x-ratelimit-remaining-requests", "499")
		h.Set("openai-processing-ms", "412")
	}
	var name string
	switch {
	case r.Header.Get("X-Test-Status") == "429":
		h.Set("Content-Type", "application/json")
		h.Set("retry-after", "17")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write(golden(u.t, "error-429.json"))
		return
	case route.Kind == "call" && stream:
		h.Set("Content-Type", "text/event-stream; charset=utf-8")
		h.Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		for i, ev := range strings.SplitAfter(string(golden(u.t, route.Wire+".sse")), "\n\n") {
			if ev == "" {
				continue
			}
			if i > 0 && u.release != nil {
				<-u.release
			}
			io.WriteString(w, ev)
			rc.Flush()
		}
		return
	case route.Kind == "call":
		name = route.Wire + ".json"
	case route.Kind == "count_tokens":
		name = "count_tokens.json"
	case route.Kind == "models":
		name = "models-" + route.Wire + ".json"
	default:
		http.NotFound(w, r)
		return
	}
	h.Set("Content-Type", "application/json")
	b := golden(u.t, name)
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(b)
		zw.Close()
		b = z.Bytes()
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}

// syncLog is a log a test can read while the proxy writes it, and wait
// on for a line.
type syncLog struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines chan string
}

func newSyncLog() *syncLog { return &syncLog{lines: make(chan string, 1024)} }

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	for _, line := range strings.SplitAfter(string(p), "\n") {
		if line != "" {
			l.lines <- strings.TrimSuffix(line, "\n")
		}
	}
	return len(p), nil
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// startProxy serves a proxy of cfg on httptest, its log shown when the
// test fails.
func startProxy(t testing.TB, cfg proxy.Config) (*httptest.Server, *proxy.Proxy, *syncLog) {
	t.Helper()
	log := newSyncLog()
	if cfg.Log == nil {
		cfg.Log = log
	}
	p, err := proxy.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(func() {
		srv.Close()
		if t.Failed() {
			t.Logf("proxy log:\n%s", log.String())
		}
	})
	return srv, p, log
}

// rawClient neither adds nor undoes compression, so the test sees the
// bytes on the wire.
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

// schedule parses a fault schedule.
func schedule(t testing.TB, yaml string) *proxy.Schedule {
	t.Helper()
	s, err := proxy.ParseSchedule([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
