package redact

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"html"
	"io"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Mask replaces every secret.
const Mask = "[redacted]"

// MinLen is the shortest value redacted.
const MinLen = 8

// Redactor replaces secrets. A nil *Redactor replaces nothing. It is safe
// for concurrent use, Add included: a secret learnt late (the key a
// pipeline names) is redacted from then on by everything that holds r.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string // as given, sorted, without duplicates
	r       *strings.Replacer
}

// New returns a Redactor of the given secrets; those shorter than MinLen
// are ignored.
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// Add adds secrets; those shorter than MinLen are ignored.
func (r *Redactor) Add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	keep := slices.Clone(r.secrets)
	for _, s := range secrets {
		if len(s) >= MinLen {
			keep = append(keep, s)
		}
	}
	slices.Sort(keep)
	keep = slices.Compact(keep)
	if len(keep) == len(r.secrets) {
		return
	}
	var forms []string
	for _, s := range keep {
		forms = append(forms, variants(s)...)
	}
	// Longest first: strings.Replacer tries its old strings in order at
	// each position, and a secret that contains another must win.
	slices.SortStableFunc(forms, func(a, b string) int { return len(b) - len(a) })
	forms = slices.Compact(forms)
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Mask)
	}
	r.secrets, r.r = keep, strings.NewReplacer(pairs...)
}

// With returns a new Redactor of r's secrets and more.
func (r *Redactor) With(secrets ...string) *Redactor {
	if r == nil {
		return New(secrets...)
	}
	r.mu.RLock()
	old := slices.Clone(r.secrets)
	r.mu.RUnlock()
	return New(append(old, secrets...)...)
}

// Len returns how many secrets r holds.
func (r *Redactor) Len() int {
	if r == nil {
		return 0
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.secrets)
}

// replacer returns the replacer in force, nil when r holds no secret.
func (r *Redactor) replacer() *strings.Replacer {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.r
}

// variants returns s in the forms it takes on the way out: as it is,
// escaped inside a JSON string (with and without HTML escaping),
// percent-encoded, and escaped in HTML (the report's page).
func variants(s string) []string {
	out := []string{s}
	if b, err := json.Marshal(s); err == nil {
		out = append(out, string(b[1:len(b)-1]))
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) == nil {
		j := strings.TrimSuffix(b.String(), "\n")
		out = append(out, j[1:len(j)-1])
	}
	out = append(out, url.QueryEscape(s), url.PathEscape(s), html.EscapeString(s))
	return append(out, encoded(s)...)
}

// encoded returns the forms s takes inside base64 and hex output, where a
// command that read a key may have put it (`base64 < key`, an
// Authorization: Basic header, `xxd -p`). Base64 turns 3 bytes into 4
// characters, so s inside a longer stream is spelt one of three ways,
// by its offset modulo 3: for each, the run of characters that s's bytes
// alone decide (the first and last may mix in a neighbour's bits and
// are left), in the standard and the URL alphabet, and for s at the
// start of a stream also wrapped as base64 (76 columns) and openssl (64)
// wrap it. Hex in lower and upper case. A run shorter than MinLen is left
// out.
func encoded(s string) []string {
	var out []string
	for k := range 3 {
		enc := base64.StdEncoding.EncodeToString(append(make([]byte, k), s...))
		from, to := (8*k+5)/6, 8*(k+len(s))/6
		if to-from < MinLen {
			continue
		}
		run := enc[from:to]
		forms := []string{run}
		if k == 0 {
			forms = append(forms, wrap(run, 76), wrap(run, 64))
		}
		for _, f := range forms {
			out = append(out, f, strings.NewReplacer("+", "-", "/", "_").Replace(f))
		}
	}
	h := hex.EncodeToString([]byte(s))
	return append(out, h, strings.ToUpper(h))
}

// wrap breaks s into lines of n characters.
func wrap(s string, n int) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n])
		b.WriteByte('\n')
		s = s[n:]
	}
	b.WriteString(s)
	return b.String()
}

// String returns s with every secret replaced by Mask.
func (r *Redactor) String(s string) string {
	if rep := r.replacer(); rep != nil {
		return rep.Replace(s)
	}
	return s
}

// Bytes returns b with every secret replaced by Mask.
func (r *Redactor) Bytes(b []byte) []byte {
	if rep := r.replacer(); rep != nil {
		return []byte(rep.Replace(string(b)))
	}
	return b
}

// Writer returns a writer that redacts each Write before passing it on.
// Each Write is redacted on its own: the writers nightshift wraps (the
// event and audit lines, messages on stderr, the answer on stdout) write
// whole lines, so a secret is never split between two writes.
func (r *Redactor) Writer(w io.Writer) io.Writer {
	if r == nil {
		return w
	}
	return writer{r, w}
}

type writer struct {
	r *Redactor
	w io.Writer
}

// Unwrap returns the writer written to, so that a caller can still ask
// whether it is a terminal.
func (w writer) Unwrap() io.Writer { return w.w }

// Underlying returns the writer under the redacting writers wrapped
// around w.
func Underlying(w io.Writer) io.Writer {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			return w
		}
		w = u.Unwrap()
	}
}

// Write reports len(p) written when the redacted text was written whole.
func (w writer) Write(p []byte) (int, error) {
	if _, err := w.w.Write(w.r.Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Error returns err with its message redacted; errors.Is and errors.As
// still see the original chain.
func (r *Redactor) Error(err error) error {
	if err == nil || r.replacer() == nil {
		return err
	}
	msg := r.String(err.Error())
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Value returns v with every string in it redacted: strings, and the
// strings in slices and maps of any depth, as an event's data holds.
// Other values are returned as they are.
func (r *Redactor) Value(v any) any {
	if r.replacer() == nil {
		return v
	}
	switch x := v.(type) {
	case string:
		return r.String(x)
	case []string:
		out := make([]string, len(x))
		for i, s := range x {
			out[i] = r.String(s)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.Value(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = r.Value(e)
		}
		return out
	case map[string]string:
		out := make(map[string]string, len(x))
		for k, e := range x {
			out[k] = r.String(e)
		}
		return out
	case json.RawMessage:
		return json.RawMessage(r.Bytes(x))
	case error:
		return r.Error(x)
	}
	return v
}
