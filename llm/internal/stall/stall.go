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
	ctx, cancel := context.WithCancelCause(req.Context())
	w := &watch{d: d, clk: clk, cancel: cancel, last: clk.Now(), err: &llm.Error{
		Provider: provider, Class: llm.Timeout,
		Message: fmt.Sprintf("the stream sent nothing for %s: cancelled as stalled", d),
	}}
	w.arm(d)
	res, err := next(req.WithContext(ctx))
	if err != nil {
		w.close()
		if w.stalled() {
			return nil, w.err
		}
		return nil, err
	}
	w.saw() // the headers are bytes too
	res.Body = &body{rc: res.Body, w: w}
	return res, nil
}

// errStalled is the cause of a request context the watch cancelled.
var errStalled = errors.New("stalled")

// watch is one exchange's timer. It is armed once and re-armed only when
// it fires early (bytes came since), so that a fast stream costs one
// clock read per read of the body, not a timer.
type watch struct {
	d      time.Duration
	clk    clock.Clock
	cancel context.CancelCauseFunc
	err    *llm.Error

	mu     sync.Mutex
	last   time.Time // the last byte
	stop   func() bool
	fired  bool
	closed bool
}

func (w *watch) arm(after time.Duration) {
	w.stop = clock.AfterFunc(w.clk, after, w.check)
}

// check runs when the timer fires: a stall when no byte came for d, else
// the timer is set again for the rest of d after the last byte.
func (w *watch) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	quiet := w.clk.Now().Sub(w.last)
	if quiet < w.d {
		w.arm(w.d - quiet)
		return
	}
	w.fired = true
	w.cancel(errStalled)
}

// saw notes that bytes arrived.
func (w *watch) saw() {
	w.mu.Lock()
	w.last = w.clk.Now()
	w.mu.Unlock()
}

func (w *watch) stalled() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
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
	n, err := b.rc.Read(p)
	if n > 0 {
		b.w.saw()
	}
	if err != nil && b.w.stalled() {
		// The read failed because the watch cancelled the request: say
		// why, in the class the retry layer reads.
		return n, b.w.err
	}
	return n, err
}

func (b *body) Close() error {
	b.w.close()
	return b.rc.Close()
}
