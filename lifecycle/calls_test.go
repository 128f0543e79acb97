package lifecycle_test

import (
	"context"
	"testing"
	"time"

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
