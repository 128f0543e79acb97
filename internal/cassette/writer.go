package cassette

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/nightshift-dev/nightshift/redact"
)

// Writer writes a cassette, one line per exchange as each ends, so that a
// recording stopped at any moment holds every exchange that ended before.
// Everything it writes passes its Redactor first. It is safe for
// concurrent use.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	red *redact.Redactor
}

// NewWriter writes the header line to w and returns a Writer of the
// exchanges. red redacts everything written, the header's upstream
// included; more secrets can be given to it later (AddSecrets). A nil red
// starts empty.
func NewWriter(w io.Writer, h Header, red *redact.Redactor) (*Writer, error) {
	if red == nil {
		red = redact.New()
	}
	h.Cassette = Version
	h.Upstream = redactURL(red, h.Upstream)
	cw := &Writer{w: w, red: red}
	if err := cw.line(h); err != nil {
		return nil, err
	}
	return cw, nil
}

// AddSecrets makes the Writer redact secrets from now on: the keys the
// recorded requests carried, which the proxy learns as they come.
func (w *Writer) AddSecrets(secrets ...string) { w.red.Add(secrets...) }

// Write redacts ex and writes it as one line.
func (w *Writer) Write(ex Exchange) error {
	ex.Request.Path = w.red.String(ex.Request.Path)
	ex.Request.Session = w.red.String(ex.Request.Session)
	r := &ex.Response
	r.Header = keptHeader(w.red, r.Header)
	if b := r.body(); len(b) > 0 {
		b = w.red.Bytes(b)
		r.Body, r.BodyBase64 = "", nil
		if utf8.Valid(b) {
			r.Body = string(b)
		} else {
			r.BodyBase64 = b
		}
	}
	events := make([]Event, len(r.Events))
	for i, e := range r.Events {
		events[i] = Event{AtMS: e.AtMS, Data: w.red.String(e.Data)}
	}
	r.Events = events
	return w.line(ex)
}

func (w *Writer) line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("cassette: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("cassette: %w", err)
	}
	return nil
}

// unkept are the response headers a cassette leaves out: those of one
// connection or one moment (a replay sends its own), and those of the
// account (cookies, the organisation and project the key belongs to).
var unkept = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Authenticate": true, "Proxy-Connection": true,
	"Te": true, "Trailer": true, "Transfer-Encoding": true, "Upgrade": true,
	"Date": true, "Content-Length": true,
	"Set-Cookie": true, "Cookie": true, "Authorization": true, "X-Api-Key": true, "Api-Key": true,
	"Openai-Organization": true, "Openai-Project": true, "Anthropic-Organization-Id": true,
}

// keptHeader is h less the unkept headers and those whose names say they
// carry a credential, every value redacted.
func keptHeader(red *redact.Redactor, h http.Header) http.Header {
	out := http.Header{}
	for k, vs := range h {
		ck := http.CanonicalHeaderKey(k)
		if unkept[ck] || redact.IsCredentialName(strings.ReplaceAll(ck, "-", "_")) {
			continue
		}
		for _, v := range vs {
			out.Add(ck, red.String(v))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// redactURL masks a URL's password, whatever its length, and redacts the
// redactor's secrets.
func redactURL(red *redact.Redactor, s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), redact.Mask)
			s = u.String()
		}
	}
	return red.String(s)
}
