// Package stall cancels a streaming call whose server stopped sending:
// a request that receives no byte (no headers, no event, not even a ping)
// for a set time is cancelled, and its failure is a Timeout-class
// *llm.Error, which the retry layer retries like any other wrong timing.
//
// A whole-call timeout cannot do this job for a stream: a healthy stream
// may run for many minutes, and a dead socket sends nothing for ever. The
// time since the last byte tells them apart.
package stall

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
)

// DefaultTimeout is how long a stream may send nothing before it is
// cancelled (`--stall`).
const DefaultTimeout = 2 * time.Minute

// Or applies a provider Config.Stall's documented meaning: zero is
// DefaultTimeout, negative is no watch (0 here).
func Or(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return DefaultTimeout
	case d < 0:
		return 0
	}
	return d
}

// Watch makes the HTTP exchange next(req) under a watch: when no byte of
// the response arrives for d, measured on clk, the request is cancelled
// and the call fails with a Timeout-class *llm.Error of provider. Its
// signature fits both SDKs' request middleware (option.WithMiddleware).
func Watch(req *http.Request, next func(*http.Request) (*http.Response, error), d time.Duration, clk clock.Clock, provider string) (*http.Response, error) {
	return WatchFirst(req, next, Limits{Quiet: d}, clk, provider)
}

// Limits are a watch's allowances.
type Limits struct {
	// Quiet is how long the stream may send nothing.
	Quiet time.Duration
	// First is allowed on top of Quiet until the first byte of the body:
	// the time the server needs to read the prompt before it can send
	// anything (Prefill.Allowance).
	First time.Duration
	// OnFirstByte, when set, is told how long the first byte of the body
	// took (Prefill.Observe learns from it).
	OnFirstByte func(time.Duration)
}

// WatchFirst is Watch with an allowance for the first byte: until the
// body's first byte, the stream may be quiet for l.Quiet+l.First (the
// response's headers do not end it: some servers send them at once and
// then nothing until the prompt is read, others send nothing at all
// until then).
func WatchFirst(req *http.Request, next func(*http.Request) (*http.Response, error), l Limits, clk clock.Clock, provider string) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	now := clk.Now()
	w := &watch{d: l.Quiet, first: l.First, onFirst: l.OnFirstByte, clk: clk, cancel: cancel, start: now, last: now, provider: provider}
	w.arm(w.limit())
	res, err := next(req.WithContext(ctx))
	if err != nil {
		w.close()
		if w.stalled() {
			return nil, w.error()
		}
		return nil, err
	}
	if w.stalled() {
		// The watch fired as the response came: the request was
		// cancelled, and the call is a stall, whatever came after.
		res.Body.Close()
		w.close()
		return nil, w.error()
	}
	w.saw(false) // the headers are bytes too
	res.Body = &body{rc: res.Body, w: w}
	return res, nil
}

// errStalled is the cause of a request context the watch cancelled.
var errStalled = errors.New("stalled")

// watch is one exchange's timer. It is armed once and re-armed only when
// it fires early (bytes came since), so that a fast stream costs one
// clock read per read of the body, not a timer.
type watch struct {
	d, first time.Duration
	onFirst  func(time.Duration)
	clk      clock.Clock
	cancel   context.CancelCauseFunc
	provider string
	start    time.Time

	mu     sync.Mutex
	last   time.Time // the last byte
	body   bool      // a byte of the body came
	quiet  time.Duration
	stop   func() bool
	fired  bool
	closed bool
}

func (w *watch) arm(after time.Duration) {
	w.stop = clock.AfterFunc(w.clk, after, w.check)
}

// limit is how long the stream may be quiet now; call with mu held or
// before the watch is shared.
func (w *watch) limit() time.Duration {
	if w.body {
		return w.d
	}
	return w.d + w.first
}

// check runs when the timer fires: a stall when no byte came for the
// limit, else the timer is set again for the rest of it after the last
// byte.
func (w *watch) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	quiet, limit := w.clk.Now().Sub(w.last), w.limit()
	if quiet < limit {
		w.arm(limit - quiet)
		return
	}
	w.fired, w.quiet = true, quiet
	w.cancel(errStalled)
}

// saw notes that bytes arrived, of the body or not.
func (w *watch) saw(body bool) {
	w.mu.Lock()
	w.last = w.clk.Now()
	first := body && !w.body
	if body {
		w.body = true
	}
	took := w.last.Sub(w.start)
	w.mu.Unlock()
	if first && w.onFirst != nil {
		w.onFirst(took)
	}
}

func (w *watch) stalled() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}

// error is the failure of a stalled exchange, in the class the retry
// layer reads, saying what the watch allowed.
func (w *watch) error() *llm.Error {
	w.mu.Lock()
	defer w.mu.Unlock()
	limit := w.limit()
	msg := fmt.Sprintf("the stream sent nothing for %s: cancelled as stalled", limit)
	if !w.body && w.first > 0 {
		msg = fmt.Sprintf("the stream sent nothing for %s (%s, and %s for the server to read the prompt): cancelled as stalled", limit, w.d, w.first)
	}
	return &llm.Error{Provider: w.provider, Class: llm.Timeout, Message: msg,
		Err: &llm.StallError{Quiet: max(w.quiet, limit), BeforeFirstByte: !w.body}}
}

// close stops the timer and releases the request's context.
func (w *watch) close() {
	w.mu.Lock()
	w.closed = true
	stop := w.stop
	w.mu.Unlock()
	stop()
	w.cancel(nil)
}

// body is a response body under the watch.
type body struct {
	rc io.ReadCloser
	w  *watch
}

func (b *body) Read(p []byte) (int, error) {
	if b.w.stalled() {
		// Cancelled as stalled: what the connection still holds is not
		// read (the call failed when the watch fired).
		return 0, b.w.error()
	}
	n, err := b.rc.Read(p)
	if n > 0 {
		b.w.saw(true)
	}
	if err != nil && b.w.stalled() {
		// The read failed because the watch cancelled the request: say
		// why, in the class the retry layer reads.
		return n, b.w.error()
	}
	return n, err
}

func (b *body) Close() error {
	b.w.close()
	return b.rc.Close()
}
