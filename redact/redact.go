package redact

import (
	"encoding/json"
	"io"
	"slices"
	"sync"
)

// Mask replaces every secret.
const Mask = "[redacted]"

// MinLen is the shortest value redacted.
const MinLen = 8

// Redactor replaces secrets. A nil *Redactor replaces nothing. It is safe
// for concurrent use, Add included: a secret learnt late (the key a
// pipeline names) is redacted from then on by everything that holds r.
//
// A secret is masked whole wherever it appears, in any of its forms (see
// variants), and in part: any FragmentLen characters of it, and its
// first or last MinLen characters where a text was cut or a line ends,
// so that a key that some code cut before it reached the redactor is
// still masked. A base64, base32 or hex stream wrapped into lines is
// also matched without its line breaks.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string // as given, sorted, without duplicates: matched in part too
	wholes  []string // the values matched only whole (AddWhole)
	m       *matcher
}

// New returns a Redactor of the given secrets; those shorter than MinLen
// are ignored.
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// Add adds secrets; those shorter than MinLen are ignored.
func (r *Redactor) Add(secrets ...string) { r.add(secrets, nil) }

// AddWhole adds values masked only where they appear whole, never in
// part: a database URL, which holds a password and a host name that is
// no secret (its password is added with Add; see Learn). Those shorter
// than MinLen are ignored.
func (r *Redactor) AddWhole(values ...string) { r.add(nil, values) }

func (r *Redactor) add(secrets, wholes []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	keep, whole := grow(r.secrets, secrets), grow(r.wholes, wholes)
	if len(keep) == len(r.secrets) && len(whole) == len(r.wholes) {
		return
	}
	r.secrets, r.wholes, r.m = keep, whole, newMatcher(keep, whole)
}

// grow returns old and the values of more at least MinLen long, sorted,
// without duplicates.
func grow(old, more []string) []string {
	keep := slices.Clone(old)
	for _, s := range more {
		if len(s) >= MinLen {
			keep = append(keep, s)
		}
	}
	slices.Sort(keep)
	return slices.Compact(keep)
}

// With returns a new Redactor of r's secrets and more.
func (r *Redactor) With(secrets ...string) *Redactor {
	if r == nil {
		return New(secrets...)
	}
	r.mu.RLock()
	old, wholes := slices.Clone(r.secrets), slices.Clone(r.wholes)
	r.mu.RUnlock()
	out := &Redactor{}
	out.add(append(old, secrets...), wholes)
	return out
}

// Len returns how many secrets r holds.
func (r *Redactor) Len() int {
	if r == nil {
		return 0
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.secrets) + len(r.wholes)
}

// matcher returns the matcher in force, nil when r holds no secret.
func (r *Redactor) matcher() *matcher {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.m
}

// String returns s with every secret replaced by Mask.
func (r *Redactor) String(s string) string {
	return r.matcher().redact(s)
}

// Bytes returns b with every secret replaced by Mask.
func (r *Redactor) Bytes(b []byte) []byte {
	m := r.matcher()
	if m == nil {
		return b
	}
	return []byte(m.redact(string(b)))
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
	if err == nil || r.matcher() == nil {
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
	if r.matcher() == nil {
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
