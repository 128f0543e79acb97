package callstack_test

import (
	"context"
	"testing"

	"github.com/nightshift-dev/nightshift/budget"
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
