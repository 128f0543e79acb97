package batch_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/retry"
)

// request is the first call of a task, which the simulator answers.
var request = &llm.Request{Messages: []llm.Message{llm.UserText("Write notes.md with the three steps.")}, MaxTokens: 64}

// The limiter learns the simulator's limit end to end: real providers,
// real HTTP on loopback, the simulator's rate limit on the same fake
// clock as the limiter, calls one after another so the runs repeat
// exactly. The first calls go out before anything is known, so the
// sliding window may refuse one call a window later; the limiter must
// keep it to that, pace at the limit, and lose no call.
func TestLimiterLearnsTheSimulatorsLimit(t *testing.T) {
	const (
		limit = 10
		per   = time.Minute
		calls = 3 * limit
	)
	pace := per / limit
	for _, wire := range []string{"anthropic", "openai"} {
		for _, noHeaders := range []bool{false, true} {
			name := wire + ": from the rate-limit headers"
			if noHeaders {
				name = wire + ": from bare 429s with only a Retry-After"
			}
			t.Run(name, func(t *testing.T) {
				c := clock.NewFake(epoch)
				s := newSim(t, scripted.RateLimitConfig{Limit: limit, Per: per, NoHeaders: noHeaders}, c)
				lim := retry.NewLimiter(retry.LimiterConfig{Clock: c})
				m := retry.Wrap(s.provider(t, wire), retry.Policy{Retries: 3, Clock: c, Limiter: lim, Rand: func() float64 { return 0 }})
				for i := range calls {
					if _, err := m.Generate(context.Background(), request); err != nil {
						t.Fatalf("call %d: %v", i+1, err)
					}
				}
				if got := s.rl.Stats(); got.Accepted != calls || got.Limited > calls/limit {
					t.Errorf("server: %+v, want all %d accepted and at most one 429 a window", got, calls)
				}
				if got := lim.State().Interval; got < pace || got > pace*11/10 {
					t.Errorf("paced %s apart, want the limit's %s (up to 10%% slower)", got, pace)
				}
				if got, most := c.Now().Sub(epoch), calls*pace*11/10; got > most {
					t.Errorf("%d calls took %s, want at most %s (1.1 × the limit's)", calls, got, most)
				}
			})
		}
	}
}

// The retry budget, not the retry count, decides how long a 429 with a
// Retry-After is waited out: through a real provider against the
// simulator's 429.
func TestRetryBudgetAgainstTheSimulator(t *testing.T) {
	tests := []struct {
		name    string
		retries int
		budget  time.Duration
		wantErr bool
	}{
		{"a Retry-After within the budget is waited out even with no retries left", 0, 2 * time.Hour, false},
		{"a Retry-After beyond the budget ends the call at once", 5, 10 * time.Minute, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := clock.NewFake(epoch)
			s := newSim(t, scripted.RateLimitConfig{Limit: 1, Per: time.Hour}, c)
			m := retry.Wrap(s.provider(t, "anthropic"), retry.Policy{Retries: retry.Count(tt.retries), Budget: tt.budget, Clock: c, Rand: func() float64 { return 0 }})
			if _, err := m.Generate(context.Background(), request); err != nil {
				t.Fatal(err)
			}
			_, err := m.Generate(context.Background(), request)
			var ex *retry.ExhaustedError
			switch {
			case tt.wantErr && !(errors.As(err, &ex) && ex.OverBudget):
				t.Errorf("err = %v, want the budget exhausted", err)
			case tt.wantErr && c.Now() != epoch:
				t.Errorf("waited until %s before giving up, want no wait", c.Now())
			case !tt.wantErr && err != nil:
				t.Errorf("err = %v, want the call to succeed after the wait", err)
			case !tt.wantErr && c.Now().Sub(epoch) < time.Hour:
				t.Errorf("succeeded after %s, want after the hour's Retry-After", c.Now().Sub(epoch))
			}
		})
	}
}
