package classify

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/nightshift-dev/nightshift/llm"
)

// maxBody bounds how much of an error body is read.
const maxBody = 64 << 10

// Call describes one provider call that failed.
type Call struct {
	// Provider names the provider ("anthropic", "openai").
	Provider string
	// Secret is removed from every message (the API key).
	Secret string
	// Response is the HTTP response, when one arrived (its status may be
	// 200 for a failure in the middle of a stream).
	Response *http.Response
	// StreamError is the JSON of an error event received mid-stream, or nil.
	StreamError []byte
	// Now is the time Retry-After dates are read against; zero means
	// time.Now().
	Now time.Time
}

// Error classifies err, the failure of the call made under ctx. It never
// returns nil.
func (c Call) Error(ctx context.Context, err error) *llm.Error {
	var done *llm.Error
	if errors.As(err, &done) {
		return done
	}
	e := &llm.Error{Provider: c.Provider, Err: c.redactErr(err)}
	if c.Response != nil {
		e.Header = c.Response.Header
	}
	switch {
	case ctx.Err() != nil:
		// The caller's context decides first: a cancel surfaces in many
		// shapes (a closed body, a reset), and it must never be retried.
		e.Class = contextClass(ctx.Err())
	case c.StreamError != nil:
		// The SDK's error keeps the request, credentials included, so it
		// is not passed on: the type and message are all it adds.
		e.Err = nil
		// No error status arrived (the stream had begun with 200), so
		// Status stays 0 and the event's type decides.
		d := ParseBody([]byte(c.redact(string(c.StreamError))))
		e.Type = d.Name()
		e.Message = c.redact("error event mid-stream: " + d.Message)
		e.Class = llm.ClassifyStatus(StreamStatus(d), d.Type+" "+d.Code, d.Message)
		llm.OverflowError(e)
	case c.Response != nil && c.Response.StatusCode >= 400:
		e.Err = nil // as above
		c.fromStatus(e, err)
	case errors.Is(err, context.Canceled):
		e.Class = llm.Canceled
	case isTimeout(err):
		e.Class = llm.Timeout
	case isConnection(err):
		e.Class = llm.Connection
	case isDecode(err), c.Response != nil:
		// A reply arrived but could not be understood.
		e.Class = llm.Malformed
	default:
		// No reply at all: the request never completed on the wire.
		e.Class = llm.Connection
	}
	return e
}

// fromStatus fills e from an error response: its status, the provider's
// type and message from the body, and the requested wait.
func (c Call) fromStatus(e *llm.Error, err error) {
	res := c.Response
	e.Status = res.StatusCode
	var d Detail
	if res.Body != nil {
		// The SDKs read the error body and put it back as an in-memory
		// reader, so this read does not touch the network.
		body, readErr := io.ReadAll(io.LimitReader(res.Body, maxBody))
		if readErr == nil {
			// Redacted before it is parsed: ParseBody cuts the message,
			// and a key cut first would not be matched.
			d = ParseBody([]byte(c.redact(string(body))))
		}
	}
	if d.Message == "" && err != nil {
		d.Message = err.Error()
	}
	e.Type = d.Name()
	e.Message = c.redact(d.Message)
	e.Class = llm.ClassifyStatus(res.StatusCode, d.Type+" "+d.Code, d.Message)
	llm.OverflowError(e)
	now := c.Now
	if now.IsZero() {
		now = time.Now()
	}
	e.RetryAfter = llm.RetryAfter(res.Header, now)
}

func contextClass(err error) llm.Class {
	if errors.Is(err, context.DeadlineExceeded) {
		return llm.Timeout
	}
	return llm.Canceled
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ETIMEDOUT) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// isConnection reports a failure of the connection itself: refused, reset,
// or closed before the reply was complete.
func isConnection(err error) bool {
	for _, target := range []error{
		io.EOF, io.ErrUnexpectedEOF, net.ErrClosed,
		syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.ECONNABORTED, syscall.EPIPE,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	var ue *url.Error
	var oe *net.OpError
	return errors.As(err, &ue) || errors.As(err, &oe)
}

func isDecode(err error) bool {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	return errors.As(err, &se) || errors.As(err, &te)
}

// minSecret is the shortest Secret removed, as redact.MinLen is the
// shortest value the redact package masks: a shorter one is no API key,
// and masking it mangled every message (a key "t" made "scripted 529"
// read "scrip[redacted]ed 529").
const minSecret = 8

func (c Call) redact(s string) string {
	if len(c.Secret) < minSecret {
		return s
	}
	return strings.ReplaceAll(s, c.Secret, "[redacted]")
}

func (c Call) redactErr(err error) error {
	if err == nil || len(c.Secret) < minSecret {
		return err
	}
	return redacted{err: err, text: c.redact(err.Error())}
}

// redacted hides a secret in an underlying error's text while keeping the
// error itself reachable for errors.Is and errors.As. It holds the text
// already cleaned, never the secret, so even %#v cannot print the key.
type redacted struct {
	err  error
	text string
}

func (r redacted) Error() string { return r.text }
func (r redacted) Unwrap() error { return r.err }
