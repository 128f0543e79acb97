package fallback_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/fallback"
	"github.com/nightshift-dev/nightshift/llm"
)

// fake answers each call with the next of its replies (the last repeats)
// and keeps the model names it was asked for.
type fake struct {
	replies []func() (*llm.Response, error)
	asked   []string
}

func (f *fake) Generate(_ context.Context, req *llm.Request) (*llm.Response, error) {
	f.asked = append(f.asked, req.Model)
	r := f.replies[min(len(f.asked), len(f.replies))-1]
	return r()
}

func text(s string) func() (*llm.Response, error) {
	return func() (*llm.Response, error) {
		return &llm.Response{Content: []llm.Block{llm.Text(s)}, StopReason: llm.EndTurn, Usage: llm.Usage{InputTokens: 10, OutputTokens: 1}}, nil
	}
}

func emptyReply() (*llm.Response, error) {
	return &llm.Response{StopReason: llm.EndTurn, Usage: llm.Usage{InputTokens: 10}}, nil
}

func fails(class llm.Class, retryAfter time.Duration) func() (*llm.Response, error) {
	return func() (*llm.Response, error) {
		return nil, &llm.Error{Provider: "p", Class: class, RetryAfter: retryAfter, Message: string(class)}
	}
}

var start = time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)

func setup(primary, second *fake, cfg fallback.Config) (*fallback.Model, *clock.Fake, *[]fallback.Event) {
	fc := clock.NewFake(start)
	var events []fallback.Event
	cfg.Clock = fc
	cfg.Primary, cfg.Fallback = "big", "small"
	cfg.OnFallback = func(e fallback.Event) { events = append(events, e) }
	return fallback.New(primary, second, cfg), fc, &events
}

func answer(t *testing.T, m llm.Model) string {
	t.Helper()
	resp, err := m.Generate(context.Background(), &llm.Request{Model: "big", Messages: []llm.Message{llm.UserText("hi")}})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return resp.Message().Text()
}

func TestTimingFailuresFallBackAndThePrimaryRests(t *testing.T) {
	for _, class := range []llm.Class{llm.Overloaded, llm.Transient, llm.Timeout, llm.RateLimited, llm.Connection} {
		t.Run(string(class), func(t *testing.T) {
			primary := &fake{replies: []func() (*llm.Response, error){fails(class, 0), text("primary")}}
			second := &fake{replies: []func() (*llm.Response, error){text("fallback")}}
			m, fc, events := setup(primary, second, fallback.Config{})
			if got := answer(t, m); got != "fallback" {
				t.Fatalf("answer %q, want the fallback's", got)
			}
			if len(*events) != 1 || (*events)[0].Reason != fallback.Exhausted || !(*events)[0].Until.Equal(start.Add(time.Minute)) {
				t.Fatalf("events %+v, want one exhausted, resting a minute", *events)
			}
			fc.Advance(59 * time.Second)
			if got := answer(t, m); got != "fallback" {
				t.Errorf("while the primary rests: %q, want the fallback's", got)
			}
			fc.Advance(time.Second)
			if got := answer(t, m); got != "primary" {
				t.Errorf("after the rest: %q, want the primary's", got)
			}
			if diff := cmp.Diff([]string{"big", "big"}, primary.asked); diff != "" {
				t.Errorf("primary asked (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"small", "small"}, second.asked); diff != "" {
				t.Errorf("the fallback is asked by its own name (-want +got):\n%s", diff)
			}
			if len(*events) != 1 {
				t.Errorf("%d events: calls made while the primary rests are no new fallback", len(*events))
			}
		})
	}
}

func TestThePrimaryRestsUntilItsLastRetryAfter(t *testing.T) {
	primary := &fake{replies: []func() (*llm.Response, error){fails(llm.Overloaded, 5*time.Minute), text("primary")}}
	second := &fake{replies: []func() (*llm.Response, error){text("fallback")}}
	m, fc, events := setup(primary, second, fallback.Config{})
	answer(t, m)
	if until := (*events)[0].Until; !until.Equal(start.Add(5 * time.Minute)) {
		t.Errorf("rests until %s, want the Retry-After's %s", until, start.Add(5*time.Minute))
	}
	fc.Advance(4 * time.Minute)
	if got := answer(t, m); got != "fallback" {
		t.Errorf("4 minutes in: %q", got)
	}
	fc.Advance(time.Minute)
	if got := answer(t, m); got != "primary" {
		t.Errorf("5 minutes in: %q", got)
	}
}

func TestEmptyAnswers(t *testing.T) {
	t.Run("twice in a row fall back", func(t *testing.T) {
		primary := &fake{replies: []func() (*llm.Response, error){emptyReply}}
		second := &fake{replies: []func() (*llm.Response, error){text("fallback")}}
		m, _, events := setup(primary, second, fallback.Config{})
		if got := answer(t, m); got != "fallback" {
			t.Fatalf("answer %q", got)
		}
		if len(primary.asked) != 2 || len(*events) != 1 || (*events)[0].Reason != fallback.Empty || (*events)[0].Wasted.InputTokens != 20 {
			t.Errorf("primary asked %d times, events %+v", len(primary.asked), *events)
		}
	})
	t.Run("once, then an answer, stays on the primary", func(t *testing.T) {
		primary := &fake{replies: []func() (*llm.Response, error){emptyReply, text("primary")}}
		second := &fake{replies: []func() (*llm.Response, error){text("fallback")}}
		m, _, events := setup(primary, second, fallback.Config{})
		if got := answer(t, m); got != "primary" || len(second.asked) != 0 || len(*events) != 0 {
			t.Errorf("answer %q, fallback asked %d times, events %v", got, len(second.asked), *events)
		}
	})
	t.Run("a cut or refused reply is not empty", func(t *testing.T) {
		for _, stop := range []llm.StopReason{llm.MaxTokens, llm.Refusal} {
			primary := &fake{replies: []func() (*llm.Response, error){func() (*llm.Response, error) { return &llm.Response{StopReason: stop}, nil }}}
			m, _, _ := setup(primary, &fake{}, fallback.Config{})
			if _, err := m.Generate(context.Background(), &llm.Request{}); err != nil || len(primary.asked) != 1 {
				t.Errorf("%s: err %v, primary asked %d times", stop, err, len(primary.asked))
			}
		}
	})
}

func TestFailuresThatDoNotFallBack(t *testing.T) {
	tests := []struct {
		name string
		err  error
		cfg  fallback.Config
	}{
		{"quota, without OnQuota", &llm.Error{Class: llm.Quota}, fallback.Config{}},
		{"auth, even with OnQuota", &llm.Error{Class: llm.Auth}, fallback.Config{OnQuota: true}},
		{"a bad request", &llm.Error{Class: llm.BadRequest}, fallback.Config{}},
		{"a budget refusal", &budget.ExceededError{Limit: budget.Tokens}, fallback.Config{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			primary := &fake{replies: []func() (*llm.Response, error){func() (*llm.Response, error) { return nil, tt.err }}}
			second := &fake{replies: []func() (*llm.Response, error){text("fallback")}}
			m, _, events := setup(primary, second, tt.cfg)
			_, err := m.Generate(context.Background(), &llm.Request{})
			if !errors.Is(err, tt.err) || len(second.asked) != 0 || len(*events) != 0 {
				t.Errorf("err %v, fallback asked %d times, events %v", err, len(second.asked), *events)
			}
		})
	}
	t.Run("a cancelled call", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		primary := &fake{replies: []func() (*llm.Response, error){fails(llm.Timeout, 0)}}
		second := &fake{replies: []func() (*llm.Response, error){text("fallback")}}
		m, _, _ := setup(primary, second, fallback.Config{})
		if _, err := m.Generate(ctx, &llm.Request{}); err == nil || len(second.asked) != 0 {
			t.Errorf("err %v, fallback asked %d times", err, len(second.asked))
		}
	})
}

func TestQuotaFallsBackWhenAskedTo(t *testing.T) {
	primary := &fake{replies: []func() (*llm.Response, error){fails(llm.Quota, 0)}}
	second := &fake{replies: []func() (*llm.Response, error){text("fallback")}}
	m, _, events := setup(primary, second, fallback.Config{OnQuota: true})
	if got := answer(t, m); got != "fallback" || (*events)[0].Reason != fallback.Quota {
		t.Errorf("answer %q, events %+v", got, *events)
	}
}

// TestModelsSharingARestRestTogether: two Models over one primary (a
// run's worker and its judge) share its Rest; the primary that failed
// for the first is not called for the second until the rest is over.
func TestModelsSharingARestRestTogether(t *testing.T) {
	primary := &fake{replies: []func() (*llm.Response, error){fails(llm.Overloaded, 0), text("primary")}}
	second := &fake{replies: []func() (*llm.Response, error){text("fallback")}}
	rest := &fallback.Rest{}
	worker, fc, _ := setup(primary, second, fallback.Config{Rest: rest})
	judge := fallback.New(primary, second, fallback.Config{Clock: fc, Rest: rest})
	if got := answer(t, worker); got != "fallback" {
		t.Fatalf("the worker's call: %q, want the fallback's", got)
	}
	if got := answer(t, judge); got != "fallback" || len(primary.asked) != 1 {
		t.Errorf("the judge's call: %q, the primary asked %d times; want the fallback's, once", got, len(primary.asked))
	}
	fc.Advance(time.Minute)
	if got := answer(t, judge); got != "primary" {
		t.Errorf("after the rest: %q, want the primary's", got)
	}
}

// TestAFallbackEventNamesTheModelTheRequestAskedFor is a regression
// test: a Model with no Primary name (the judge's, whose requests name
// their model) reported its fallbacks from no model, and the line read
// "[fallback · primary → small: ...; primary rests until ...]". The
// event names the model the request asked for.
func TestAFallbackEventNamesTheModelTheRequestAskedFor(t *testing.T) {
	primary := &fake{replies: []func() (*llm.Response, error){fails(llm.Overloaded, 0)}}
	second := &fake{replies: []func() (*llm.Response, error){text("fallback")}}
	var events []fallback.Event
	m := fallback.New(primary, second, fallback.Config{Fallback: "small", Clock: clock.NewFake(start),
		OnFallback: func(e fallback.Event) { events = append(events, e) }})
	if _, err := m.Generate(context.Background(), &llm.Request{Model: "judge-m", Messages: []llm.Message{llm.UserText("hi")}}); err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].From != "judge-m" || !strings.HasPrefix(events[0].Line(), "judge-m → small") {
		t.Errorf("events %+v (line %q), want one from judge-m", events, events[0].Line())
	}
}

// TestAnOpenBreakerFallsOver is a regression test: a call that met the
// primary's open circuit breaker (a *breaker.UnavailableError) ended the
// run unavailable although a fallback was there. It goes to the fallback
// with an unavailable event, and the primary rests until its breaker
// lets a probe through.
func TestAnOpenBreakerFallsOver(t *testing.T) {
	open := func() (*llm.Response, error) {
		return nil, &breaker.UnavailableError{Endpoint: "api.example.com", Failures: 5, Cool: 30 * time.Second, Until: start.Add(20 * time.Second)}
	}
	primary := &fake{replies: []func() (*llm.Response, error){open, text("primary")}}
	second := &fake{replies: []func() (*llm.Response, error){text("fallback")}}
	m, fc, events := setup(primary, second, fallback.Config{})
	if got := answer(t, m); got != "fallback" {
		t.Fatalf("answer %q, want the fallback's", got)
	}
	if len(*events) != 1 || (*events)[0].Reason != fallback.Unavailable || !(*events)[0].Until.Equal(start.Add(20*time.Second)) {
		t.Fatalf("events %+v, want one unavailable, resting until the probe at +20s", *events)
	}
	if line := (*events)[0].Line(); !strings.HasPrefix(line, "big → small: unavailable; big rests until 02:00:20") {
		t.Errorf("line %q", line)
	}
	fc.Advance(20 * time.Second)
	if got := answer(t, m); got != "primary" || len(primary.asked) != 2 {
		t.Errorf("after the cool-off: %q after %d primary calls, want the primary's second answer", got, len(primary.asked))
	}
}
