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

// TestTheLastBodyIsKeptAsBuilt: the body released last comes back by its
// stamp only, with its bytes; a body still read is not it; Get never
// hands it out; and once a newer body is released, it is the last one.
func TestTheLastBodyIsKeptAsBuilt(t *testing.T) {
	var p Pool
	a := p.Get(16)
	a.Bytes, a.Stamp = append(a.Bytes, `{"a":1}`...), 7
	req := request(t, a.Bytes)
	a.Attach(req)
	a.Done()
	if p.Last(7) != nil {
		t.Fatal("a body the transport still reads came back")
	}
	req.Body.Close()
	if p.Last(8) != nil || p.Last(0) != nil {
		t.Fatal("the last body came back by another stamp")
	}
	if g := p.Get(16); g == a {
		t.Fatal("Get handed out the body kept as last")
	}
	got := p.Last(7)
	if got != a || string(got.Bytes) != `{"a":1}` {
		t.Fatalf("Last(7) = %p %q, want the body as built", got, got.Bytes)
	}
	if p.Last(7) != nil {
		t.Fatal("the last body came back twice")
	}
	got.Done()
	b := p.Get(16)
	b.Stamp = 9
	b.Done()
	if p.Last(7) != nil || p.Last(9) != b {
		t.Error("a body released later is not the last one")
	}
}
