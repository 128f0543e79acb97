// Package transport holds the one HTTP client that the providers of a
// process share when their Config names none.
//
// A client per provider Client (as each run built one) kept its own pool
// of idle connections: a batch of 3,000 tasks at four at once grew to
// 1,689 open sockets and about 60 KB of memory per finished task, freed
// only after 90 s idle, as issue 13 reports (BenchmarkBatchSockets in
// cmd/nightshift measured 3,000 sockets and 45 KB a task before this
// package, 4 sockets and 3 KB a task after). One shared Transport pools the
// connections of each endpoint (it keys its pool by host) for every run
// of the process: a batch's tasks, the night's workers, the judge.
package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// The shared Transport's bounds.
const (
	// MaxIdlePerHost is how many idle connections are kept per endpoint:
	// enough that calls made at once by up to this many runs reuse their
	// connections rather than opening one per call; connections beyond it
	// are closed when their call ends.
	MaxIdlePerHost = 64
	// MaxIdle bounds the idle connections over every endpoint.
	MaxIdle = 128
	// IdleTimeout closes a connection unused this long.
	IdleTimeout = 30 * time.Second
	// ResponseHeaderTimeout gives up on a server that sends no response
	// headers this long after the request: longer than any model call
	// the APIs accept without streaming.
	ResponseHeaderTimeout = 10 * time.Minute
)

// Shared returns the process's HTTP client for provider calls, made on
// first use from a clone of http.DefaultTransport (its proxy settings,
// dial and TLS timeouts, HTTP/2) with the bounds above.
var Shared = sync.OnceValue(func() *http.Client {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return &http.Client{Transport: http.DefaultTransport}
	}
	t = t.Clone()
	t.MaxIdleConns = MaxIdle
	t.MaxIdleConnsPerHost = MaxIdlePerHost
	t.IdleConnTimeout = IdleTimeout
	t.ResponseHeaderTimeout = ResponseHeaderTimeout
	dial := t.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &conn{Conn: c}, nil
	}
	return &http.Client{Transport: t}
})

// copyBufSize is the size of the buffers a request body is written
// through: a long run's body (80 KB at step 200 with small tool results)
// goes out in one or two writes.
const copyBufSize = 128 << 10

// copyBufs lends the buffers conn.ReadFrom writes a body through.
var copyBufs = sync.Pool{New: func() any { return new([copyBufSize]byte) }}

// conn is a connection that writes a request body through a pooled
// buffer. An HTTP/1 Transport hands a body of known length to the
// connection's ReadFrom as an io.LimitedReader, which a TCP connection
// copies with a new 32 KB buffer on every request (net's genericReadFrom,
// through io.Copy): a third of what a step of a long run allocated, and
// garbage collection the harness paid for at every step (issue 15).
// HTTPS connections are wrapped by crypto/tls, which only calls Write.
type conn struct{ net.Conn }

// ReadFrom writes what r reads to the connection, through a pooled buffer,
// or with no copy at all when r is the whole rest of a body held in
// memory (a provider's request body, which reqbody lends as a
// bytes.Reader): copying a long run's 80 KB body into the buffer was
// part of what a step cost more at step 200 than at step 10.
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	if lr, ok := r.(*io.LimitedReader); ok {
		if br, ok := lr.R.(inMemory); ok && int64(br.Len()) == lr.N {
			n, err := br.WriteTo(c.Conn)
			lr.N -= n
			return n, err
		}
	}
	buf := copyBufs.Get().(*[copyBufSize]byte)
	defer copyBufs.Put(buf)
	// writerOnly hides the connection's own ReadFrom from CopyBuffer.
	return io.CopyBuffer(writerOnly{c.Conn}, r, buf[:])
}

type writerOnly struct{ io.Writer }

// inMemory is a reader of bytes held in memory, which it writes with one
// call (bytes.Reader, strings.Reader, bytes.Buffer).
type inMemory interface {
	io.WriterTo
	Len() int
}

// CloseWrite closes the connection's writing side, as a TCP connection's
// CloseWrite does (net/http calls it on the body of a 101 Switching
// Protocols response, which is the connection).
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}
