package providertest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Recorder keeps what a provider's test server received, so that a test
// can read the request its client sent: the body as JSON and as bytes,
// and the headers.
type Recorder struct {
	// URL is the server's address, with no path; a caller whose client
	// takes a base URL with a prefix (/v1) may add it.
	URL     string
	mu      sync.Mutex
	bodies  []map[string]any
	raw     [][]byte
	headers []http.Header
}

// Serve starts a test server, closed when t ends, that records each
// request to path and hands it to h with its body still to read; any
// other path is not found.
func Serve(t testing.TB, path string, h http.HandlerFunc) *Recorder {
	t.Helper()
	rec := &Recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(b, &body)
		rec.mu.Lock()
		rec.bodies = append(rec.bodies, body)
		rec.raw = append(rec.raw, b)
		rec.headers = append(rec.headers, r.Header.Clone())
		rec.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	rec.URL = srv.URL
	return rec
}

// Count is how many requests the server received.
func (rec *Recorder) Count() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.bodies)
}

// Last returns the last request's body and headers; it fails t when there
// was none.
func (rec *Recorder) Last(t testing.TB) (map[string]any, http.Header) {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.bodies) == 0 {
		t.Fatal("the server received no request")
	}
	return rec.bodies[len(rec.bodies)-1], rec.headers[len(rec.headers)-1]
}

// LastRaw returns the last request's body as it was sent; it fails t when
// there was none.
func (rec *Recorder) LastRaw(t testing.TB) []byte {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.raw) == 0 {
		t.Fatal("the server received no request")
	}
	return rec.raw[len(rec.raw)-1]
}
