package providertest

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/llm"
)

// MustFail checks that err is an *llm.Error from provider, matching
// llm.ErrProvider, with the key in none of its renderings, and returns it.
func MustFail(t testing.TB, err error, provider, key string) *llm.Error {
	t.Helper()
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	if e.Provider != provider {
		t.Errorf("provider = %q, want %q", e.Provider, provider)
	}
	if !errors.Is(err, llm.ErrProvider) {
		t.Errorf("errors.Is(err, llm.ErrProvider) is false")
	}
	for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), e.Message} {
		if strings.Contains(s, key) {
			t.Fatalf("the API key appears in the error: %s", s)
		}
	}
	return e
}

// Failure is the part of an *llm.Error a provider's test checks: what the
// retry layer decides by.
type Failure struct {
	Class      llm.Class
	Status     int
	Type       string
	RetryAfter time.Duration
}

// FailureOf is e's Failure.
func FailureOf(e *llm.Error) Failure {
	return Failure{Class: e.Class, Status: e.Status, Type: e.Type, RetryAfter: e.RetryAfter}
}

// Hijack takes over the connection and closes it, after writing prefix:
// a reply broken off mid-way.
func Hijack(t testing.TB, w http.ResponseWriter, prefix string) {
	if prefix != "" {
		fmt.Fprint(w, prefix)
		w.(http.Flusher).Flush()
	}
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	conn.Close()
}
