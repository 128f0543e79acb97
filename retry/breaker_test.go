package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
)

// down answers connection refused until the clock reaches up.
func down(c clock.Clock, up time.Time, calls *int) func(context.Context) (string, error) {
	return func(context.Context) (string, error) {
		*calls++
		if c.Now().Before(up) {
			return "", &llm.Error{Class: llm.Connection, Message: "connection refused"}
		}
		return "ok", nil
	}
}

func TestACallWaitsOnAnOpenBreakerWithinItsBudget(t *testing.T) {
	ctx := context.Background()
	t.Run("an outage shorter than the budget costs no retry and ends in one probe", func(t *testing.T) {
		c := clock.NewFake(epoch)
		var rec event.Recorder
		b := breaker.New(breaker.Config{Failures: 2, Cool: 30 * time.Second, Clock: c}, "api.example.com")
		p := retry.Policy{Retries: 2, Clock: c, Rand: constRand(0), Breaker: b, OnBreaker: rec.Emit}
		calls := 0
		got, err := retry.Do(ctx, p, down(c, epoch.Add(70*time.Second), &calls))
		if err != nil || got != "ok" {
			t.Fatalf("got %q, %v; want ok", got, err)
		}
		var lines []string
		for _, e := range rec.Events() {
			lines = append(lines, e.Line())
		}
		// Two failures open it (a backoff of 1s between them), a probe at
		// 31s fails and opens it again, the probe at 61s fails, the one
		// at 91s is answered.
		want := []string{
			"[breaker · open endpoint=api.example.com failures=2 cool=30s]",
			"[breaker · probe endpoint=api.example.com]",
			"[breaker · open endpoint=api.example.com failures=3 cool=30s]",
			"[breaker · probe endpoint=api.example.com]",
			"[breaker · open endpoint=api.example.com failures=4 cool=30s]",
			"[breaker · probe endpoint=api.example.com]",
			"[breaker · closed endpoint=api.example.com open_for=1m30s]",
		}
		if diff := cmp.Diff(want, lines); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
		if calls != 5 {
			t.Errorf("%d calls, want 5 (2 failures, 3 probes)", calls)
		}
	})
	t.Run("an outage longer than the budget ends the call unavailable, not exhausted", func(t *testing.T) {
		c := clock.NewFake(epoch)
		b := breaker.New(breaker.Config{Failures: 2, Cool: 30 * time.Second, Clock: c}, "api.example.com")
		p := retry.Policy{Retries: 2, Budget: time.Minute, Clock: c, Rand: constRand(0), Breaker: b}
		calls := 0
		_, err := retry.Do(ctx, p, down(c, epoch.Add(time.Hour), &calls))
		var ue *breaker.UnavailableError
		if !errors.As(err, &ue) || errors.Is(err, retry.ErrExhausted) {
			t.Fatalf("err = %v, want an UnavailableError", err)
		}
		if ue.Since != epoch.Add(time.Second) || ue.Failures != 3 {
			t.Errorf("unavailable %+v, want since %s after 3 failures", ue, epoch.Add(time.Second))
		}
		if waited := c.Now().Sub(epoch); waited > time.Minute+time.Second {
			t.Errorf("the call took %s, past its budget of 1m", waited)
		}
	})
}

// A call with somewhere else to go (FailOnOpen: its fallback model) does
// not wait on an open breaker: the failure that opens it, and every call
// that finds it open, end at once unavailable, with when it lets a probe
// through.
func TestACallThatMayFallOverDoesNotWaitOnTheBreaker(t *testing.T) {
	ctx := context.Background()
	c := clock.NewFake(epoch)
	b := breaker.New(breaker.Config{Failures: 2, Cool: 30 * time.Second, Clock: c}, "api.example.com")
	p := retry.Policy{Retries: 5, Clock: c, Rand: constRand(0), Breaker: b, FailOnOpen: true}
	calls := 0
	_, err := retry.Do(ctx, p, down(c, epoch.Add(time.Hour), &calls))
	var ue *breaker.UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want an UnavailableError once the breaker opened", err)
	}
	// Two failures, a backoff of 1s between them, and no wait after.
	if calls != 2 || !c.Now().Equal(epoch.Add(time.Second)) || !ue.Until.Equal(epoch.Add(31*time.Second)) {
		t.Errorf("%d calls, clock at %s, probe at %s; want 2 calls, no wait on the breaker, a probe at %s",
			calls, c.Now().Sub(epoch), ue.Until, epoch.Add(31*time.Second))
	}
	_, err = retry.Do(ctx, p, down(c, epoch.Add(time.Hour), &calls))
	if !errors.Is(err, breaker.ErrUnavailable) || calls != 2 || !c.Now().Equal(epoch.Add(time.Second)) {
		t.Errorf("the next call on the open breaker: %v after %d calls in all, clock at %s; want unavailable at once", err, calls, c.Now().Sub(epoch))
	}
}
