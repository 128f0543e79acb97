package main

import (
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// fourCallScenario is a run of four model calls: three tool calls and the
// answer, which the check exists:notes.md passes.
const fourCallScenario = `
turns:
  - tool_calls: [{name: write_file, input: {path: notes.md, content: "# Notes\nall three steps done\n"}}]
  - tool_calls: [{name: read_file, input: {path: notes.md}}]
  - tool_calls: [{name: list_dir, input: {path: .}}]
  - text: "Wrote notes.md with the three steps."
`

// BenchmarkProcessesPacing is issue 13's measure, in real time: twenty
// separate `nightshift run` processes (this test binary re-executed),
// each needing four model calls, started together against a simulator
// that allows two requests a second (a sliding window of 2 per 1s, as
// `sim serve --limit 2 --per 1s`): 80 calls, an ideal of 40 s. The
// processes share one state directory, and so one limiter file.
//
// It reports:
//
//   - failed: processes that did not exit 0 (target 0);
//   - 429-share: calls answered 429 over all calls (target ≤ 0.10);
//   - x-ideal: wall time from the first start to the last exit over the
//     ideal, accepted calls ÷ the limit's rate (target ≤ 1.25).
//
// Run it with: go test ./cmd/nightshift -run '^$' -bench ProcessesPacing -benchtime 1x
func BenchmarkProcessesPacing(b *testing.B) {
	const (
		procs = 20
		limit = 2
		per   = time.Second
	)
	for _, bc := range []struct {
		name      string
		noHeaders bool
	}{
		{"headers", false},
		{"bare-429s", true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var failed, limited, all int
			var ratio float64
			runs := 0
			for b.Loop() {
				sc, err := scripted.Parse([]byte(fourCallScenario))
				if err != nil {
					b.Fatal(err)
				}
				rl := scripted.RateLimit(scripted.NewServer(sc, scripted.ServerConfig{ForgetRequests: true}),
					scripted.RateLimitConfig{Limit: limit, Per: per, NoHeaders: bc.noHeaders})
				srv := httptest.NewServer(rl)
				dir := b.TempDir()
				state := filepath.Join(dir, "state")
				env := []string{"NIGHTSHIFT_STATE_DIR=" + state}
				works := make([]string, procs)
				for i := range works {
					works[i] = filepath.Join(dir, fmt.Sprint(i))
					writeFiles(b, works[i], map[string]string{"README.md": "x"})
				}
				start := time.Now()
				children := make([]*child, procs)
				for i := range children {
					children[i] = startChildEnv(b, works[i], env, "run", "--provider", "openai", "--base-url", srv.URL,
						"--no-judge", "--check", "exists:notes.md", fmt.Sprintf("task %d: write notes.md", i))
				}
				for i, c := range children {
					if code, stderr := c.wait(b); code != 0 {
						failed++
						b.Logf("process %d exited %d:\n%s", i, code, stderr)
					}
				}
				elapsed := time.Since(start)
				srv.Close()
				st := rl.Stats()
				ideal := time.Duration(st.Accepted) * per / limit
				limited += st.Limited
				all += st.Accepted + st.Limited
				ratio += float64(elapsed) / float64(ideal)
				runs++
				b.Logf("%d processes: %d accepted, %d answered 429, %s (ideal %s)", procs, st.Accepted, st.Limited, elapsed.Round(time.Millisecond), ideal)
			}
			b.ReportMetric(float64(failed)/float64(runs), "failed")
			b.ReportMetric(float64(limited)/float64(all), "429-share")
			b.ReportMetric(ratio/float64(runs), "x-ideal")
		})
	}
}
