package lifecycle_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
)

// TestCallsRetryAndPaceLikeARun: a call made outside a run's loop (the
// night's proposer or judge) waits out a 429 under the default policy,
// holds its credential's limiter for the Retry-After, and says so in a
// retry event of the caller's run.
func TestCallsRetryAndPaceLikeARun(t *testing.T) {
	fc := clock.NewFake(dusk)
	calls := 0
	m := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		calls++
		if calls == 1 {
			return nil, &llm.Error{Provider: "test", Class: llm.RateLimited, Status: 429, RetryAfter: 3 * time.Second}
		}
		return &llm.Response{Content: []llm.Block{llm.Text("ideas")}, StopReason: llm.EndTurn}, nil
	})
	ev := &event.Recorder{}
	lim := retry.NewLimiter(retry.LimiterConfig{Clock: fc})
	resp, err := lifecycle.Calls{Events: ev, Clock: fc}.Model(m, lim, "2026-11-29").Generate(context.Background(), &llm.Request{})
	if err != nil || resp.Message().Text() != "ideas" {
		t.Fatalf("Generate = %v, %v; want the reply after one retry", resp, err)
	}
	evs := ev.Events()
	if len(evs) != 1 || evs[0].Type != "retry" || evs[0].Run != "2026-11-29" || evs[0].Data["status"] != 429 {
		t.Fatalf("events %+v, want one retry event of the night", evs)
	}
	if got := lim.State().BlockedUntil; !got.Equal(dusk.Add(3 * time.Second)) {
		t.Errorf("limiter blocked until %v, want the 429's Retry-After held on the credential", got)
	}
}

// TestACallsFallbackGoesThroughItsOwnBreaker is a regression test: the
// fallback of a call outside a run's loop (a night role's fallback model)
// had no circuit breaker, so with both endpoints down it hammered the
// fallback's through all its retries and ended as a failure, not
// unavailable. The primary's breaker is open: the call goes to the
// fallback (a fallback event, reason unavailable); the fallback's
// endpoint refuses, its own breaker opens at its first failure, and the
// call ends unavailable after one call to it.
func TestACallsFallbackGoesThroughItsOwnBreaker(t *testing.T) {
	fc := clock.NewFake(dusk)
	refused := &llm.Error{Provider: "test", Class: llm.Connection, Message: "connection refused"}
	primaryCalls, secondCalls := 0, 0
	primary := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) { primaryCalls++; return nil, refused })
	second := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) { secondCalls++; return nil, refused })
	pb := breaker.New(breaker.Config{Failures: 1, Cool: time.Hour, Clock: fc}, "primary.example")
	tk, _, _ := pb.Admit(context.Background(), 0, nil)
	tk.Record(refused, nil) // the primary's endpoint is down: open
	sb := breaker.New(breaker.Config{Failures: 1, Cool: time.Hour, Clock: fc}, "second.example")
	ev := &event.Recorder{}
	calls := lifecycle.Calls{Events: ev, Clock: fc, Retry: retry.Policy{Breaker: pb, Budget: time.Minute, Backoff: time.Millisecond},
		Fallback: &agent.Fallback{Model: second, ModelName: "small", Breaker: sb}}
	_, err := calls.Model(primary, nil, "2026-11-29").Generate(context.Background(), &llm.Request{})
	if !errors.Is(err, breaker.ErrUnavailable) || primaryCalls != 0 || secondCalls != 1 {
		t.Fatalf("Generate: %v after %d primary and %d fallback calls; want unavailable after one fallback call, none to the primary",
			err, primaryCalls, secondCalls)
	}
	var kinds []string
	for _, e := range ev.Events() {
		kinds = append(kinds, e.Line())
	}
	if len(kinds) != 2 || !strings.HasPrefix(kinds[0], "[fallback · primary → small: unavailable;") ||
		kinds[1] != "[breaker · open endpoint=second.example failures=1 cool=1h0m0s]" {
		t.Errorf("events %q, want the fallback (unavailable) and the fallback's breaker opening", kinds)
	}
}
