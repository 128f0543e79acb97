package providertest

import (
	"context"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
)

// GenerateRetrying calls m until a reply or a failure that is not
// retryable (at most 5 calls), and returns the classes of the failures on
// the way. It stands in for the retry package, on which the providers'
// tests must not depend.
func GenerateRetrying(t testing.TB, m llm.Model, req *llm.Request) (*llm.Response, []llm.Class) {
	t.Helper()
	var seen []llm.Class
	for range 5 {
		resp, err := m.Generate(context.Background(), req)
		if err == nil {
			return resp, seen
		}
		c := llm.ClassOf(err)
		seen = append(seen, c)
		if !c.Retryable() {
			t.Fatalf("not retryable: %v", err)
		}
	}
	t.Fatal("no reply after 5 attempts")
	return nil, nil
}
