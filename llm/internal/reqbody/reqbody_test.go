package reqbody

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

func request(t *testing.T, body []byte) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://x", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestABodyGoesBackOnlyOnceNothingReadsIt: neither the end of the call
// nor the transport's closing its reader alone returns the body; both do,
// in either order, and a reader GetBody made must be closed too.
func TestABodyGoesBackOnlyOnceNothingReadsIt(t *testing.T) {
	for _, callFirst := range []bool{true, false} {
		var p Pool
		b := p.Get(16)
		b.Bytes = append(b.Bytes, `{"a":1}`...)
		req := request(t, b.Bytes)
		if !b.Attach(req) {
			t.Fatal("not attached")
		}
		again, _ := req.GetBody()
		got, _ := io.ReadAll(req.Body)
		if string(got) != `{"a":1}` {
			t.Fatalf("read %q", got)
		}
		if callFirst {
			b.Done()
			req.Body.Close()
		} else {
			req.Body.Close()
			b.Done()
		}
		req.Body.Close() // a second close counts once
		if n := b.refs.Load(); n != 1 || b.pooled.Load() {
			t.Fatalf("%d references left, want the GetBody reader's; pooled %v", n, b.pooled.Load())
		}
		again.Close()
		if n := b.refs.Load(); n != 0 || !b.pooled.Load() {
			t.Errorf("%d references left; pooled %v", n, b.pooled.Load())
		}
	}
}

func TestARequestOfAnotherBodyIsLeftAlone(t *testing.T) {
	var p Pool
	b := p.Get(16)
	b.Bytes = append(b.Bytes, `{"a":1}`...)
	req := request(t, []byte(`{"a":12}`))
	if b.Attach(req) {
		t.Fatal("attached to another body")
	}
	b.Done()
	if b.pooled.Load() {
		t.Errorf("a body the transport may still read went back to the pool")
	}
}
