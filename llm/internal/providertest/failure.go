package providertest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

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
