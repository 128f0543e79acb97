package budget_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
)

// fixedModel answers every call with the same usage and counts the calls.
type fixedModel struct {
	usage llm.Usage
	calls int
}

func (m *fixedModel) Generate(context.Context, *llm.Request) (*llm.Response, error) {
	m.calls++
	return &llm.Response{Content: []llm.Block{llm.Text("ok")}, StopReason: llm.EndTurn, Usage: m.usage}, nil
}

// request is a prompt of n characters.
func request(n int) *llm.Request {
	return &llm.Request{Messages: []llm.Message{llm.UserText(strings.Repeat("x", n))}}
}

// centPerToken prices every token at one cent.
func centPerToken(u llm.Usage) models.Cost { return models.USD(float64(u.Total()) / 100) }

func TestMeterStopsBeforeTheCallThatWouldCross(t *testing.T) {
	t.Run("a token budget refuses the call whose estimate crosses it, not the one after", func(t *testing.T) {
		m := budget.NewMeter(budget.Limits{Tokens: 1000}, budget.Spend{})
		inner := &fixedModel{usage: llm.Usage{InputTokens: 250, OutputTokens: 50}}
		worker := m.Model(inner, nil)
		// Each call: 1000 characters (250 tokens) in, 50 out: 300 a call.
		var err error
		for i := 0; i < 10 && err == nil; i++ {
			_, err = worker.Generate(context.Background(), request(1000))
		}
		var ex *budget.ExceededError
		if !errors.As(err, &ex) || !errors.Is(err, budget.ErrExceeded) {
			t.Fatalf("err = %v, want an ExceededError", err)
		}
		if inner.calls != 3 || m.Spent().Usage.Total() != 900 {
			t.Errorf("%d calls made, %d tokens spent; want 3 calls (900), the fourth (1200) refused", inner.calls, m.Spent().Usage.Total())
		}
		if ex.Limit != budget.Tokens || ex.Spent != 900 || ex.Next != 300 {
			t.Errorf("error %+v", ex)
		}
	})
	t.Run("a dollar budget is priced by the model's pricer and counts every model of the run", func(t *testing.T) {
		m := budget.NewMeter(budget.Limits{USD: 4.5}, budget.Spend{})
		worker := m.Model(&fixedModel{usage: llm.Usage{InputTokens: 100, OutputTokens: 100}}, centPerToken)
		judge := m.Model(&fixedModel{usage: llm.Usage{InputTokens: 50, OutputTokens: 50}}, centPerToken)
		if _, err := worker.Generate(context.Background(), request(400)); err != nil {
			t.Fatal(err)
		}
		if _, err := judge.Generate(context.Background(), request(200)); err != nil {
			t.Fatal(err)
		}
		if got, _ := m.Spent().Cost.USD(); got != 3 {
			t.Fatalf("spent $%v, want $3 (worker $2, judge $1)", got)
		}
		_, err := worker.Generate(context.Background(), request(400))
		if !errors.Is(err, budget.ErrExceeded) || !strings.Contains(err.Error(), "$4.5000") {
			t.Errorf("third call: %v, want refused: $3 spent + $2 estimated crosses $4.50", err)
		}
	})
	t.Run("at 100 % no call is made, however small", func(t *testing.T) {
		m := budget.NewMeter(budget.Limits{Tokens: 100}, budget.Spend{Usage: llm.Usage{InputTokens: 100}})
		inner := &fixedModel{}
		_, err := m.Model(inner, nil).Generate(context.Background(), &llm.Request{})
		if !errors.Is(err, budget.ErrExceeded) || inner.calls != 0 || !strings.Contains(err.Error(), "is spent") {
			t.Errorf("err = %v after %d calls, want the spent budget refusing", err, inner.calls)
		}
	})
	t.Run("a dollar budget with an unknown price stops rather than overspend", func(t *testing.T) {
		m := budget.NewMeter(budget.Limits{USD: 1}, budget.Spend{})
		_, err := m.Model(&fixedModel{}, nil).Generate(context.Background(), request(10))
		var ex *budget.ExceededError
		if !errors.As(err, &ex) || !ex.Unknown || !strings.Contains(err.Error(), "--models") {
			t.Errorf("err = %v, want the unknown cost named, with what to do", err)
		}
	})
	t.Run("no limits: every call is made and counted, the cost unknown when unpriced", func(t *testing.T) {
		m := budget.NewMeter(budget.Limits{}, budget.Spend{})
		for range 3 {
			if _, err := m.Model(&fixedModel{usage: llm.Usage{InputTokens: 1}}, nil).Generate(context.Background(), request(4)); err != nil {
				t.Fatal(err)
			}
		}
		if s := m.Spent(); s.Usage.InputTokens != 3 || s.Cost.Known() {
			t.Errorf("spent %+v, want 3 tokens at an unknown cost", s)
		}
	})
}

func TestEstimator(t *testing.T) {
	var e budget.Estimator
	if got := e.Estimate(request(4000)); got.InputTokens != 1000 || got.OutputTokens != 0 {
		t.Errorf("first estimate %+v, want 4000 characters at 4 a token and no output yet", got)
	}
	// The provider counted 1300 tokens for those 4000 characters (the
	// tools and the system prompt tokenise worse): the next estimate
	// starts from there and adds the new characters.
	e.Observe(request(4000), llm.Usage{InputTokens: 1300, OutputTokens: 200, CacheReadTokens: 1000})
	got := e.Estimate(request(4400))
	if got.InputTokens != 1400 || got.OutputTokens != 200 || got.CacheReadTokens != 1300 {
		t.Errorf("second estimate %+v, want 1400 in (1300 cached), 200 out", got)
	}
}
