package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
)

func TestExhaustedError(t *testing.T) {
	last := &llm.Error{Class: llm.Connection, Err: errors.New("connection reset")}
	fn, _ := script(statusErr(503, "", "unavailable"), last)
	_, err := retry.Do(context.Background(), retry.Policy{Retries: 1, Clock: clock.NewFake(epoch), Rand: constRand(0)}, fn)

	t.Run("it matches the sentinel", func(t *testing.T) {
		if !errors.Is(err, retry.ErrExhausted) {
			t.Errorf("errors.Is(%v, ErrExhausted) = false", err)
		}
	})
	t.Run("it is the typed error with the count and the last failure", func(t *testing.T) {
		var ex *retry.ExhaustedError
		if !errors.As(err, &ex) {
			t.Fatalf("errors.As(%v) = false", err)
		}
		if ex.Attempts != 2 || ex.Last != last || ex.OverBudget || ex.Waited != time.Second {
			t.Errorf("got %+v, want 2 attempts, waited 1s, the last failure, not over budget", *ex)
		}
	})
	t.Run("the class read through it is the last failure's", func(t *testing.T) {
		if c := llm.ClassOf(err); c != llm.Connection {
			t.Errorf("ClassOf = %q, want connection", c)
		}
	})
}

// The message counts the calls made, one of them without a plural (a
// policy of no retries).
func TestExhaustedSaysHowManyCalls(t *testing.T) {
	last := errors.New("overloaded")
	for _, tc := range []struct {
		e    retry.ExhaustedError
		want string
	}{
		{retry.ExhaustedError{Attempts: 1, Last: last}, "retries exhausted after 1 call (waited 0s): overloaded"},
		{retry.ExhaustedError{Attempts: 4, Waited: 1500 * time.Millisecond, Last: last}, "retries exhausted after 4 calls (waited 1.5s): overloaded"},
		{retry.ExhaustedError{Attempts: 2, OverBudget: true, Last: last}, "retry budget exhausted after 2 calls (waited 0s): overloaded"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
