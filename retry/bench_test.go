package retry_test

import (
	"context"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
)

// BenchmarkDoSuccess is the cost the retry layer adds to a call that
// succeeds at once: every model call pays it.
func BenchmarkDoSuccess(b *testing.B) {
	ctx := context.Background()
	p := retry.Policy{Retries: retry.DefaultRetries}
	fn := func(context.Context) (int, error) { return 1, nil }
	for b.Loop() {
		retry.Do(ctx, p, fn)
	}
}

// BenchmarkLimiterWaitParallel is the cost of taking a turn under a shared
// limiter that has no pace to enforce, from many goroutines at once.
func BenchmarkLimiterWaitParallel(b *testing.B) {
	l := retry.NewLimiter(retry.LimiterConfig{})
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.Wait(ctx, 100)
			l.Observe(nil, nil)
		}
	})
}

// BenchmarkWrapWithLimiter is a successful model call through Wrap with a
// limiter reading OpenAI rate-limit headers on every response. The resets
// are due at once, so the pace stays empty and no real timer runs.
func BenchmarkWrapWithLimiter(b *testing.B) {
	resp := &llm.Response{Header: header(
		"x-ratelimit-remaining-requests", "1000000", "x-ratelimit-reset-requests", "0s",
		"x-ratelimit-remaining-tokens", "100000000", "x-ratelimit-reset-tokens", "0s")}
	m := retry.Wrap(llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) { return resp, nil }),
		retry.Policy{Limiter: retry.NewLimiter(retry.LimiterConfig{})})
	req := &llm.Request{Messages: []llm.Message{llm.UserText("hello")}, MaxTokens: 16}
	ctx := context.Background()
	for b.Loop() {
		m.Generate(ctx, req)
	}
}
