package batch_test

import (
	"context"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/batch"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/retry"
)

// BenchmarkPacing is issue 5's measure, in real time over loopback HTTP:
// a batch of four-call tasks, fifty at once, through real providers and
// one shared limiter, against the simulator's sliding-window rate limit.
//
// The setting is 200 tasks against --limit 600 --per 1m: 800
// calls, 80 s at that limit. This runs the same rate (600 a minute) as
// --limit 60 --per 6s with a quarter of the tasks, 50: 200 calls, ideal
// 20 s. The window is scaled with the task count so that the batch still
// spans several windows (the first calls' burst meets the window again),
// and the fifty callers at once are kept, which is where a harness
// stampedes. It reports:
//
//   - failed-tasks: tasks not done (target 0);
//   - 429-share: calls answered 429 over all calls (target ≤ 0.05);
//   - x-ideal: wall time over the ideal, calls ÷ the limit's rate (target
//     ≤ 1.1). The sliding window lets the first 60 calls through at once,
//     so a perfect run can come in slightly under 1.
//
// Each server is met twice: with the limiter in memory (a library's
// default) and shared through a file, as `nightshift batch` shares it
// with the machine's other processes (issue 13).
//
// Run it with: go test ./batch -run '^$' -bench Pacing -benchtime 1x
func BenchmarkPacing(b *testing.B) {
	const (
		tasks_   = 50
		parallel = 50
		limit    = 60
		per      = 6 * time.Second
	)
	for _, bc := range []struct {
		name      string
		wire      string
		noHeaders bool
		file      bool
	}{
		{"anthropic-headers", "anthropic", false, false},
		{"openai-headers", "openai", false, false},
		{"openai-bare-429s", "openai", true, false},
		{"anthropic-headers-file", "anthropic", false, true},
		{"openai-headers-file", "openai", false, true},
		{"openai-bare-429s-file", "openai", true, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var failed, limited, all int
			var ratio float64
			runs := 0
			for b.Loop() {
				s := newSim(b, scripted.RateLimitConfig{Limit: limit, Per: per, NoHeaders: bc.noHeaders}, clock.Real{})
				cfg := retry.LimiterConfig{}
				if bc.file {
					cfg.Dir = b.TempDir()
				}
				lims := retry.NewLimiters(cfg)
				base := lifecycle.Config{
					Model: s.provider(b, bc.wire),
					Retry: retry.Policy{Retries: retry.DefaultRetries, Limiter: lims.For(bc.wire, "sk-test")},
				}
				start := time.Now()
				sum, err := batch.Run(context.Background(), batch.Config{
					Parallel: parallel, WorkDir: b.TempDir(), Run: batch.AgentRunner(base),
				}, tasks(tasks_))
				if err != nil {
					b.Fatal(err)
				}
				elapsed := time.Since(start)
				if err := lims.Close(); err != nil {
					b.Fatal(err)
				}
				st := s.rl.Stats()
				ideal := time.Duration(st.Accepted) * per / limit
				failed += len(sum.Tasks) - sum.Done
				limited += st.Limited
				all += st.Accepted + st.Limited
				ratio += float64(elapsed) / float64(ideal)
				runs++
			}
			b.ReportMetric(float64(failed)/float64(runs), "failed-tasks")
			b.ReportMetric(float64(limited)/float64(all), "429-share")
			b.ReportMetric(ratio/float64(runs), "x-ideal")
		})
	}
}
