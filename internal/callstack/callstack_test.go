package callstack_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/fallback"
	"github.com/nightshift-dev/nightshift/internal/callstack"
	"github.com/nightshift-dev/nightshift/internal/testenv"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/retry"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestTheStackIsObserveFallbackMeterRetry: a primary that stays
// overloaded runs out of retries, the fallback answers, the meter counts
// the answer at the fallback's price, and the observer sees the call
// once, its fallback inside it.
func TestTheStackIsObserveFallbackMeterRetry(t *testing.T) {
	primaryCalls, observed, answered := 0, 0, 0
	primary := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		primaryCalls++
		return nil, &llm.Error{Provider: "test", Class: llm.Overloaded, Status: 529}
	})
	second := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Content: []llm.Block{llm.Text("ok")}, StopReason: llm.EndTurn, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}}, nil
	})
	meter := budget.NewMeter(budget.Limits{}, budget.Spend{})
	m := callstack.Build(callstack.Config{
		Model: primary, Retry: retry.Policy{Retries: retry.NoRetries}, Meter: meter,
		Price: func(llm.Usage) models.Cost { return models.USD(100) },
		Second: &callstack.Second{Model: second, Price: func(llm.Usage) models.Cost { return models.USD(1) },
			Config: fallback.Config{Rest: &fallback.Rest{}}, Answered: func() { answered++ }},
		Observe: func(inner llm.Model) llm.Model {
			return llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
				observed++
				return inner.Generate(ctx, req)
			})
		},
	})
	if _, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}}); err != nil {
		t.Fatal(err)
	}
	spent := meter.Spent()
	usd, _ := spent.Cost.USD()
	switch {
	case primaryCalls != 1 || answered != 1 || observed != 1:
		t.Errorf("primary %d calls, fallback answered %d, observed %d; want 1, 1, 1", primaryCalls, answered, observed)
	case spent.Usage.OutputTokens != 5 || usd != 1:
		t.Errorf("meter %+v: want the fallback's answer at its own price", spent)
	}
}

// TestAnOpenBreakerSendsTheCallToTheFallback is a regression test: with
// the primary's endpoint down, its breaker open, a call waited on it
// through the whole retry budget and the run ended unavailable, its
// fallback never asked. The call that opens the breaker and every call
// that finds it open go to the fallback at once (one fallback event,
// reason unavailable), behind the fallback's own breaker; only when that
// one is open too does the call end unavailable.
func TestAnOpenBreakerSendsTheCallToTheFallback(t *testing.T) {
	ctx := context.Background()
	epoch := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	c := clock.NewFake(epoch)
	primaryCalls, secondCalls := 0, 0
	refused := &llm.Error{Provider: "test", Class: llm.Connection, Message: "connection refused"}
	primary := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		primaryCalls++
		return nil, refused
	})
	secondDown := false
	second := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		secondCalls++
		if secondDown {
			return nil, refused
		}
		return &llm.Response{Content: []llm.Block{llm.Text("ok")}, StopReason: llm.EndTurn}, nil
	})
	pb := breaker.New(breaker.Config{Failures: 2, Cool: 30 * time.Second, Clock: c}, "primary.example")
	sb := breaker.New(breaker.Config{Failures: 1, Cool: time.Hour, Clock: c}, "second.example")
	var fell []fallback.Event
	m := callstack.Build(callstack.Config{
		Model: primary, Retry: retry.Policy{Retries: 3, Budget: time.Minute, Clock: c, Rand: func() float64 { return 0 }, Breaker: pb},
		Second: &callstack.Second{Model: second, Breaker: sb,
			Config: fallback.Config{Clock: c, OnFallback: func(e fallback.Event) { fell = append(fell, e) }}},
	})
	req := &llm.Request{Messages: []llm.Message{llm.UserText("hi")}}
	if _, err := m.Generate(ctx, req); err != nil {
		t.Fatalf("the call whose failure opened the primary's breaker: %v, want the fallback's answer", err)
	}
	if primaryCalls != 2 || secondCalls != 1 || !c.Now().Equal(epoch.Add(time.Second)) {
		t.Errorf("%d primary calls, %d fallback calls, %s waited; want 2, 1 and only the backoff between the two failures",
			primaryCalls, secondCalls, c.Now().Sub(epoch))
	}
	if len(fell) != 1 || fell[0].Reason != fallback.Unavailable || !fell[0].Until.Equal(epoch.Add(31*time.Second)) {
		t.Fatalf("fallback events %+v, want one unavailable resting the primary until the probe", fell)
	}
	// The primary's rest is over, its breaker still open: the call goes
	// to the fallback without touching the primary's endpoint.
	c.Advance(20 * time.Second)
	fell = nil
	rest := &fallback.Rest{}
	m = callstack.Build(callstack.Config{
		Model: primary, Retry: retry.Policy{Retries: 3, Budget: time.Minute, Clock: c, Rand: func() float64 { return 0 }, Breaker: pb},
		Second: &callstack.Second{Model: second, Breaker: sb,
			Config: fallback.Config{Clock: c, Rest: rest, OnFallback: func(e fallback.Event) { fell = append(fell, e) }}},
	})
	if _, err := m.Generate(ctx, req); err != nil || primaryCalls != 2 || secondCalls != 2 || len(fell) != 1 {
		t.Errorf("a call on the open breaker: %v, %d primary calls, %d fallback calls, %d events; want the fallback's answer, no primary call",
			err, primaryCalls, secondCalls, len(fell))
	}
	// The fallback's endpoint goes down too: its breaker opens, and the
	// call waits on it, within the budget, then ends unavailable.
	secondDown = true
	rest = &fallback.Rest{}
	m = callstack.Build(callstack.Config{
		Model: primary, Retry: retry.Policy{Retries: 3, Budget: time.Minute, Clock: c, Rand: func() float64 { return 0 }, Breaker: pb},
		Second: &callstack.Second{Model: second, Breaker: sb, Config: fallback.Config{Clock: c, Rest: rest}},
	})
	_, err := m.Generate(ctx, req)
	if !errors.Is(err, breaker.ErrUnavailable) || primaryCalls != 2 || secondCalls != 3 {
		t.Errorf("both endpoints down: %v after %d primary and %d fallback calls; want unavailable after one fallback call", err, primaryCalls, secondCalls)
	}
	if pb.Status().State != breaker.Open || sb.Status().State != breaker.Open {
		t.Errorf("primary's breaker %s, fallback's %s: want both open, each its own", pb.Status().State, sb.Status().State)
	}
}
