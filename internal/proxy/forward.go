package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strings"
	"sync"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// hopHeaders belong to one connection, not to the exchange: a proxy does
// not pass them on (RFC 9110, section 7.6.1).
var hopHeaders = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

// copyHeader copies src into dst less the hop-by-hop headers and those
// the Connection header names.
func copyHeader(dst, src http.Header) {
	drop := map[string]bool{}
	for _, h := range hopHeaders {
		drop[h] = true
	}
	for _, v := range src.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			drop[textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name))] = true
		}
	}
	for k, vs := range src {
		if drop[textproto.CanonicalMIMEHeaderKey(k)] {
			continue
		}
		dst[k] = append([]string(nil), vs...)
	}
}

// upstreamRequest is the request as it goes upstream: the same method,
// the upstream's path and query with the request's appended, the same
// headers (less the hop-by-hop ones, so the key passes through) and body.
// identity asks for a reply that is not compressed, for a fault or a
// recording that must read it.
func (p *Proxy) upstreamRequest(x *exchange, identity bool) (*http.Request, error) {
	u := *p.upstream
	u.Path = strings.TrimSuffix(p.upstream.Path, "/") + x.r.URL.Path
	u.RawPath = ""
	switch {
	case p.upstream.RawQuery == "":
		u.RawQuery = x.r.URL.RawQuery
	case x.r.URL.RawQuery != "":
		u.RawQuery = p.upstream.RawQuery + "&" + x.r.URL.RawQuery
	}
	var body io.Reader = http.NoBody
	if len(x.body) > 0 {
		body = bytes.NewReader(x.body)
	}
	out, err := http.NewRequestWithContext(x.r.Context(), x.r.Method, u.String(), body)
	if err != nil {
		return nil, err
	}
	copyHeader(out.Header, x.r.Header)
	if _, ok := out.Header["User-Agent"]; !ok {
		// The client sent none: send none either, rather than Go's.
		out.Header["User-Agent"] = []string{""}
	}
	if identity {
		out.Header.Del("Accept-Encoding")
	}
	out.ContentLength = int64(len(x.body))
	return out, nil
}

// forward sends the exchange upstream and answers with the reply, with
// the exchange's fault, if it has one, applied; it says what it did.
func (p *Proxy) forward(x *exchange) string {
	f := x.fault
	identity := p.record != nil || (f != nil && f.content())
	up, err := p.upstreamRequest(x, identity)
	if err != nil {
		return p.upstreamFailed(x, err)
	}
	resp, err := p.transport.RoundTrip(up)
	if err != nil {
		return p.upstreamFailed(x, err)
	}
	defer resp.Body.Close()
	copyHeader(x.c.Header(), resp.Header)
	if _, ok := resp.Header["Content-Type"]; !ok {
		// None upstream: none here either, rather than a sniffed one.
		x.c.Header()["Content-Type"] = nil
	}
	stream := isStream(resp.Header)
	switch {
	case f == nil || !(f.content() || f.Drop || f.Reset == "after_headers" || (f.Stall.On && x.stream())):
		// No fault, or one already played (a delay, a stall before the
		// headers).
		return p.pass(x, resp)
	case f.Reset == "after_headers":
		x.c.WriteHeader(resp.StatusCode)
		x.c.reset()
		return fmt.Sprintf("forwarded, sent %d and its headers, then reset the connection", resp.StatusCode)
	case f.Drop && stream:
		events := p.until(x, resp, true)
		return fmt.Sprintf("forwarded, sent %d and %d events, then reset the connection", resp.StatusCode, events)
	case f.Drop:
		b, _ := io.ReadAll(resp.Body)
		x.c.Header().Set("Content-Length", fmt.Sprint(len(b)))
		x.c.WriteHeader(resp.StatusCode)
		x.c.Write(b[:len(b)/2]) //nolint:errcheck // the reset follows either way
		x.c.reset()
		return fmt.Sprintf("forwarded, sent %d and %d of %d bytes, then reset the connection", resp.StatusCode, len(b)/2, len(b))
	case f.Stall.On:
		events := p.until(x, resp, false)
		if !p.wait(x, f.Stall) {
			return fmt.Sprintf("forwarded, sent %d and %d events, then stalled until the client gave up", resp.StatusCode, events)
		}
		return fmt.Sprintf("forwarded, sent %d and %d events, stalled %v, then %s", resp.StatusCode, events, f.Stall.For, p.pass(x, resp))
	}
	return p.rewrite(x, resp, stream)
}

// upstreamFailed answers a request the upstream could not be asked, in
// the wire's format: 502, or nothing when the client itself went away.
func (p *Proxy) upstreamFailed(x *exchange, err error) string {
	if x.r.Context().Err() != nil {
		return "the client went away before the upstream answered"
	}
	scripted.WriteError(x.c, x.wire(), http.StatusBadGateway, scripted.ErrorBody{Type: "api_error",
		Message: "nightshift sim proxy: the upstream could not be reached: " + scrub(err)})
	return "upstream failed (" + scrub(err) + "): answered 502"
}

// scrub is an upstream error without the URL's query, which could hold a
// key.
func scrub(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return inner.Error()
		}
	}
	return err.Error()
}

var bufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// pass sends the rest of the reply as it comes, flushing every read.
func (p *Proxy) pass(x *exchange, resp *http.Response) string {
	x.c.WriteHeader(resp.StatusCode)
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	buf := *bp
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := x.c.Write(buf[:n]); werr != nil {
				return fmt.Sprintf("forwarded %d, the client went away after %dB", resp.StatusCode, x.c.bytes)
			}
			x.c.flush()
		}
		if err == io.EOF {
			return fmt.Sprintf("forwarded %d %dB in %v", resp.StatusCode, x.c.bytes, x.elapsed())
		}
		if err != nil {
			// The upstream broke off: so does the reply.
			x.c.reset()
			return fmt.Sprintf("forwarded %d, the upstream broke off after %dB (%v): reset the connection", resp.StatusCode, x.c.bytes, err)
		}
	}
}

// until sends a stream's events up to and including its first content
// event, or, when none comes, all but its last, and then resets the
// connection (reset) or returns (for a stall). It returns how many events
// it sent.
func (p *Proxy) until(x *exchange, resp *http.Response, reset bool) int {
	x.c.WriteHeader(resp.StatusCode)
	er := newEventReader(resp.Body)
	sent := 0
	send := func(e *sseEvent) {
		x.c.Write(e.raw) //nolint:errcheck // a client gone is seen at the end
		x.c.flush()
		sent++
	}
	// One event is held back until the next comes, so that a stream
	// without content is stopped before its last event.
	var pending, held *sseEvent
	for {
		e, err := er.next()
		if err != nil {
			held = pending
			break
		}
		if pending != nil {
			send(pending)
			pending = nil
		}
		if e.contentEvent() {
			send(e)
			break
		}
		pending = e
	}
	if reset {
		x.c.reset()
		return sent
	}
	// A stall resumes where the reader stopped, the event held back
	// first.
	var rest []io.Reader
	if held != nil {
		rest = append(rest, bytes.NewReader(held.raw))
	}
	resp.Body = io.NopCloser(io.MultiReader(append(rest, er.rest())...))
	return sent
}

// rewrite applies a content fault to the real answer. An answer that is
// not a model call's success is passed on unchanged, and the note says
// so.
func (p *Proxy) rewrite(x *exchange, resp *http.Response, stream bool) string {
	if x.call == nil || resp.StatusCode != http.StatusOK {
		why := "not a model call"
		if x.call != nil {
			why = fmt.Sprintf("upstream answered %d", resp.StatusCode)
		}
		return "not applied (" + why + "): " + p.pass(x, resp)
	}
	rw := &rewriter{f: x.fault}
	for _, t := range x.call.Request.Tools {
		rw.offered = append(rw.offered, t.Name)
	}
	x.c.Header().Del("Content-Length")
	if !stream {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			x.c.reset()
			return fmt.Sprintf("the upstream broke off (%v): reset the connection", err)
		}
		out, err := rw.json(x.wire(), body)
		if err != nil {
			x.c.WriteHeader(resp.StatusCode)
			x.c.Write(body) //nolint:errcheck // a client gone is nothing to answer
			return fmt.Sprintf("not applied (%v): forwarded %d %dB", err, resp.StatusCode, len(body))
		}
		x.c.WriteHeader(resp.StatusCode)
		x.c.Write(out) //nolint:errcheck // a client gone is nothing to answer
		return fmt.Sprintf("forwarded, answer rewritten: %d %dB (upstream %dB)", resp.StatusCode, len(out), len(body))
	}
	// A stream is read whole first: where half of it falls is known only
	// at its end.
	var events []*sseEvent
	er := newEventReader(resp.Body)
	var readErr error
	for {
		e, err := er.next()
		if err != nil {
			if err != io.EOF {
				readErr = err
			}
			break
		}
		events = append(events, e)
	}
	out, err := rw.stream(x.wire(), events)
	note := fmt.Sprintf("forwarded, stream rewritten: %d, %d events (upstream %d)", resp.StatusCode, len(out), len(events))
	if err != nil {
		out, note = events, fmt.Sprintf("not applied (%v): forwarded %d, %d events", err, resp.StatusCode, len(events))
	}
	x.c.WriteHeader(resp.StatusCode)
	for _, e := range out {
		if _, err := x.c.Write(e.bytes()); err != nil {
			break
		}
		x.c.flush()
	}
	if readErr != nil {
		x.c.reset()
		note += fmt.Sprintf("; the upstream broke off (%v): reset the connection", readErr)
	}
	return note
}
