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

// TestTheLastBodiesAreKeptAsBuilt: a body released comes back by its
// stamp only, with its bytes, once; a body still read is not kept; Get
// never hands a kept one out; a body without a stamp is not kept; and
// past maxKept, the oldest goes.
func TestTheLastBodiesAreKeptAsBuilt(t *testing.T) {
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
		t.Fatal("a kept body came back by another stamp")
	}
	if g := p.Get(16); g == a {
		t.Fatal("Get handed out a kept body")
	}
	got := p.Last(7)
	if got != a || string(got.Bytes) != `{"a":1}` {
		t.Fatalf("Last(7) = %p %q, want the body as built", got, got.Bytes)
	}
	if p.Last(7) != nil {
		t.Fatal("a kept body came back twice")
	}
	got.Done() // stamp 7 still: kept again

	unstamped := p.Get(16)
	unstamped.Done()
	if p.Kept(0) {
		t.Error("a body without a stamp was kept")
	}
	for s := uint64(100); s < 100+maxKept; s++ {
		b := p.Get(16)
		b.Stamp = s
		b.Done()
	}
	if p.Kept(7) {
		t.Errorf("the oldest of %d kept bodies was not let go", maxKept+1)
	}
	for s := uint64(100); s < 100+maxKept; s++ {
		if b := p.Last(s); b == nil || b.Stamp != s {
			t.Fatalf("body %d of the newest %d was not kept", s, maxKept)
		}
	}
}
