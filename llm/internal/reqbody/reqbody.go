// Package reqbody lends the request bodies of a provider's calls from a
// pool. A long run's body holds its whole history (80 KB at step 200 of
// a run with small tool results, megabytes with large ones); allocating a
// new one for every call made the garbage collector's work, and with it
// the harness's cost per step, grow with the conversation.
//
// The bodies released last are kept apart (Pool.Last), as they were
// built: the next call of the same conversation resends all of it and
// appends a step, and llm/internal/encoded rewrites only what changed in
// it, where copying a long run's whole history into a fresh buffer on
// every call was part of what a step cost more at step 200 than at step
// 10. A few are kept, so that the runs of a batch or the workers of a
// night that share a client each find theirs.
//
// A body may go back to the pool only once nothing reads it any more:
// the HTTP transport reads a request's body in a goroutine of its own,
// which may outlive the call (an early reply, a retried connection). So
// the body is handed to the transport through readers the pool counts
// (Attach, from the SDK's request middleware), each done when the
// transport closes it, as it always does (http.RoundTripper); the body
// goes back when the call is over and every reader is closed.
package reqbody

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
)

// maxPooled is the largest body kept for reuse; a larger one is left to
// the garbage collector.
const maxPooled = 16 << 20

// maxKept is how many bodies released last are kept as built: as many
// conversations at once as a batch or a night commonly runs on one client.
const maxKept = 8

// Pool lends body buffers. The zero value is ready.
type Pool struct {
	p sync.Pool

	mu sync.Mutex
	// kept are the bodies released last, oldest first, kept out of p so
	// that no Get hands them out: their bytes stay as their Stamps say
	// they were built.
	kept []*Body
}

// Body is one call's body: its bytes and the readers still reading them.
type Body struct {
	// Bytes is the body. Append to Bytes[:0] to fill it.
	Bytes []byte
	// Stamp names the build that wrote Bytes, for Pool.Last; zero, as
	// Get returns it, names none.
	Stamp uint64
	pool  *Pool
	refs  atomic.Int32
	// pooled is set when the body went back to the pool.
	pooled atomic.Bool
}

// Get returns an empty body: a pooled one, whatever its room (appending
// to its Bytes grows it, and the grown one goes back to the pool), or a
// new one with room for size bytes. The caller must call Done once the
// call is over.
func (p *Pool) Get(size int) *Body {
	b, _ := p.p.Get().(*Body)
	if b == nil {
		b = &Body{Bytes: make([]byte, 0, size)}
	}
	b.Bytes = b.Bytes[:0]
	b.Stamp = 0
	b.lend(p)
	return b
}

// Last returns the kept body whose Stamp is stamp (not zero), with its
// Bytes as they were built; else nil. The caller must call Done, as for
// Get.
func (p *Pool) Last(stamp uint64) *Body {
	if stamp == 0 {
		return nil
	}
	p.mu.Lock()
	for i := len(p.kept) - 1; i >= 0; i-- {
		if b := p.kept[i]; b.Stamp == stamp {
			p.kept = slices.Delete(p.kept, i, i+1)
			p.mu.Unlock()
			b.lend(p)
			return b
		}
	}
	p.mu.Unlock()
	return nil
}

// Kept reports whether a body with this stamp is kept: for tests.
func (p *Pool) Kept(stamp uint64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.ContainsFunc(p.kept, func(b *Body) bool { return b.Stamp == stamp })
}

func (b *Body) lend(p *Pool) {
	b.pool = p
	b.refs.Store(1)
	b.pooled.Store(false)
}

// keep keeps b as built, a body without a stamp excepted; past maxKept,
// the oldest kept goes to the pool.
func (p *Pool) keep(b *Body) {
	if b.Stamp == 0 {
		p.p.Put(b)
		return
	}
	p.mu.Lock()
	p.kept = append(p.kept, b)
	var old *Body
	if len(p.kept) > maxKept {
		old = p.kept[0]
		p.kept = slices.Delete(p.kept, 0, 1)
	}
	p.mu.Unlock()
	if old != nil {
		p.p.Put(old)
	}
}

// Done says the call is over; the body goes back to the pool once every
// reader Attach gave the transport is closed too.
func (b *Body) Done() { b.release() }

func (b *Body) release() {
	if b.refs.Add(-1) == 0 && cap(b.Bytes) <= maxPooled {
		b.pooled.Store(true)
		b.pool.keep(b)
	}
}

// Attach makes req read the body through counted readers, when req's
// body is this body (by length: the SDK built req from these bytes); it
// reports whether it did. A request it does not attach to leaves the
// body to the garbage collector's care: it is not reused.
func (b *Body) Attach(req *http.Request) bool {
	if req.ContentLength != int64(len(b.Bytes)) {
		b.refs.Add(1) // never released: the body is not reused
		return false
	}
	if req.Body != nil {
		req.Body.Close()
	}
	req.Body = b.reader()
	req.GetBody = func() (io.ReadCloser, error) { return b.reader(), nil }
	return true
}

// reader is a counted reader of the body.
func (b *Body) reader() io.ReadCloser {
	b.refs.Add(1)
	return &reader{Reader: bytes.NewReader(b.Bytes), b: b}
}

type reader struct {
	*bytes.Reader
	b      *Body
	closed atomic.Bool
}

func (r *reader) Close() error {
	if r.closed.CompareAndSwap(false, true) {
		r.b.release()
	}
	return nil
}
