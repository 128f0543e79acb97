package transport_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/nightshift-dev/nightshift/llm/internal/transport"
)

// Regression (issue 15): an HTTP/1 request body of known length was
// written through a new 32 KB buffer on every request (net's
// genericReadFrom), a third of what a step of a long run allocated. The
// shared client writes it through a pooled buffer, and the body arrives
// whole, also when it is larger than that buffer.
func TestRequestBodyWrittenWithoutACopyBufferPerRequest(t *testing.T) {
	var got bytes.Buffer
	got.Grow(1 << 20) // the server's reads allocate nothing
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Reset()
		got.ReadFrom(r.Body)
	}))
	defer srv.Close()
	hc := transport.Shared()
	post := func(body []byte) {
		t.Helper()
		res, err := hc.Post(srv.URL, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}

	big := bytes.Repeat([]byte("0123456789abcdef"), 40<<10) // 640 KB
	post(big)
	if !bytes.Equal(got.Bytes(), big) {
		t.Fatalf("the server read %d bytes of a %d-byte body, or other bytes", got.Len(), len(big))
	}

	if raceEnabled {
		return // what follows counts allocations (race_test.go)
	}
	body := bytes.Repeat([]byte("x"), 80<<10)
	post(body) // the connection and its buffers are made
	var before, after runtime.MemStats
	const n = 20
	runtime.ReadMemStats(&before)
	for range n {
		post(body)
	}
	runtime.ReadMemStats(&after)
	// A request and its response take a few KB (headers, the
	// request's and the response's structures); a 32 KB copy buffer
	// each time is what this catches.
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 16<<10 {
		t.Errorf("a request with an 80 KB body allocated %d bytes", per)
	}
}
