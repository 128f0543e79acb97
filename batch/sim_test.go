package batch_test

import (
	"context"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/batch"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/retry"
)

// A batch of many four-call tasks against a simulator that allows far
// fewer calls a window than the batch would like to make finishes every
// task: the shared limiter paces them and the 429s that slip through are
// waited out within the retry budget.
func TestBatchFinishesEveryTaskUnderARateLimit(t *testing.T) {
	const (
		n        = 12
		parallel = 6
		limit    = 8
	)
	for _, wire := range []string{"anthropic", "openai"} {
		for _, noHeaders := range []bool{false, true} {
			name := wire + " with rate-limit headers"
			if noHeaders {
				name = wire + " with bare 429s"
			}
			t.Run(name, func(t *testing.T) {
				c := clock.NewFake(epoch)
				s := newSim(t, scripted.RateLimitConfig{Limit: limit, Per: 10 * time.Second, NoHeaders: noHeaders}, c)
				lims := retry.NewLimiters(retry.LimiterConfig{Clock: c})
				base := lifecycle.Config{
					Model: s.provider(t, wire),
					Retry: retry.Policy{Retries: retry.DefaultRetries, Clock: c, Limiter: lims.For(wire, "sk-test")},
					Clock: c,
				}
				sum, err := batch.Run(context.Background(), batch.Config{
					Parallel: parallel, WorkDir: t.TempDir(), Run: batch.AgentRunner(base), Clock: c,
				}, tasks(n))
				if err != nil {
					t.Fatal(err)
				}
				for _, tr := range sum.Tasks {
					if tr.Result.Outcome != agent.Done {
						t.Errorf("%s: %s: %s", tr.Name, tr.Result.Outcome, tr.Result.Reason)
					}
				}
				if got := s.rl.Stats(); got.Accepted != n*callsPerTask {
					t.Errorf("server accepted %d calls, want %d (%+v)", got.Accepted, n*callsPerTask, got)
				}
				t.Logf("%+v in %s of simulated time", s.rl.Stats(), c.Now().Sub(epoch))
			})
		}
	}
}
