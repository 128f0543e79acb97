package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/anthropic"
	"github.com/nightshift-dev/nightshift/llm/openai"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/tool/fs"
	"github.com/nightshift-dev/nightshift/workspace"
)

// sessions is how many runs go on at once in one batch (issue 2).
const sessions = 1000

// sessionSteps is the length of each session in sessionScenario.
const sessionSteps = 4

// sessionScenario is a short working session: a rate limit answered with
// a Retry-After, two reads in one reply, a write, a read back, and a
// final answer. Each session's task is different, so each conversation
// meets its own 429 (the simulator counts attempts per conversation).
const sessionScenario = `
turns:
  - attempts:
      - {status: 429, headers: {retry-after-ms: "1"}}
      - tool_calls: [{name: read_file, input: {path: notes.md}}, {name: list_dir, input: {path: .}}]
  - tool_calls: [{name: write_file, input: {path: out/summary.md, content: "# Summary\n\nThe notes say the build is green.\n"}}]
  - tool_calls: [{name: read_file, input: {path: out/summary.md}}]
  - text: Wrote out/summary.md from notes.md and read it back.
`

// slot is one session's workspace and tools, set up once and reused by
// every batch (the session's write leaves the same file each time).
type slot struct {
	root  *workspace.Root
	tools *tool.Set
}

func slots(b *testing.B) []slot {
	b.Helper()
	base := b.TempDir()
	out := make([]slot, sessions)
	for i := range out {
		dir := filepath.Join(base, fmt.Sprintf("ws%04d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("The build is green.\nThe docs are stale.\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		root, err := workspace.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { root.Close() })
		set, err := tool.NewSet(fs.Tools(root)...)
		if err != nil {
			b.Fatal(err)
		}
		out[i] = slot{root: root, tools: set}
	}
	return out
}

// transport keeps a connection per concurrent session alive between
// calls. With the default of two idle connections per host, 998 of 1,000
// connections would be closed after every call and dialled again, and
// the closed ones would pile up in TIME_WAIT.
func transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = sessions
	t.MaxIdleConnsPerHost = sessions
	return t
}

// providers builds a provider client on the simulator at url.
var providers = []struct {
	name string
	make func(url string, stream bool, hc *http.Client) (llm.Model, error)
}{
	{"anthropic", func(url string, stream bool, hc *http.Client) (llm.Model, error) {
		return anthropic.New(anthropic.Config{APIKey: "sk-ant-bench", BaseURL: url, Stream: stream, HTTPClient: hc})
	}},
	{"openai", func(url string, stream bool, hc *http.Client) (llm.Model, error) {
		return openai.New(openai.Config{APIKey: "sk-bench", BaseURL: url + "/v1", Stream: stream, HTTPClient: hc})
	}},
}

// BenchmarkConcurrentSessions1000 runs batches of 1,000 agent sessions at
// once in this process, each through a real provider client over loopback
// to one scripted simulator, per provider and per reply mode (one JSON
// body, or streamed events). Each session is sessionScenario: four steps
// with a 429 retried, four tool calls on its own workspace, and a verified
// final answer, its events recorded as the CLI records them.
//
// Per batch it reports wall-ms (the time until the last session ended),
// cpu-ms (CPU time of the whole process, simulator included), sessions/s,
// and, sampled every millisecond while the batch runs, peak-heap-MB (live
// and unswept heap objects), peak-live-MB (what a garbage collection
// found live: the memory the sessions really held), peak-sys-MB (all memory the Go runtime
// holds: heap, stacks, metadata), heap-KB/session (the heap's peak growth
// over the batch, per session) and peak-goroutines.
func BenchmarkConcurrentSessions1000(b *testing.B) {
	sc, err := scripted.Parse([]byte(sessionScenario))
	if err != nil {
		b.Fatal(err)
	}
	ws := slots(b)
	for _, p := range providers {
		for _, stream := range []bool{false, true} {
			mode := "json"
			if stream {
				mode = "stream"
			}
			b.Run(p.name+"/"+mode, func(b *testing.B) {
				b.ReportAllocs()
				var wall, cpu time.Duration
				var heap, live, total, growth, goroutines uint64
				n := 0
				for b.Loop() {
					// A fresh simulator per batch, so that its
					// attempt counters and its log of requests start
					// empty and every session meets its 429.
					b.StopTimer()
					hs := httptest.NewServer(scripted.NewServer(sc, scripted.ServerConfig{}))
					hc := &http.Client{Transport: transport()}
					m, err := p.make(hs.URL, stream, hc)
					if err != nil {
						b.Fatal(err)
					}
					runtime.GC()
					b.StartTimer()

					r := batch(b, m, ws)

					b.StopTimer()
					hc.CloseIdleConnections()
					hs.Close()
					wall += r.wall
					cpu += r.cpu
					heap = max(heap, r.peak.heap)
					live = max(live, r.peak.live)
					total = max(total, r.peak.total)
					growth = max(growth, r.peak.heap-r.peak.first)
					goroutines = max(goroutines, r.peak.goroutines)
					n++
					b.StartTimer()
				}
				const mb = 1 << 20
				b.ReportMetric(float64(wall.Milliseconds())/float64(n), "wall-ms")
				b.ReportMetric(float64(cpu.Milliseconds())/float64(n), "cpu-ms")
				b.ReportMetric(float64(n*sessions)/wall.Seconds(), "sessions/s")
				b.ReportMetric(float64(heap)/mb, "peak-heap-MB")
				b.ReportMetric(float64(live)/mb, "peak-live-MB")
				b.ReportMetric(float64(total)/mb, "peak-sys-MB")
				b.ReportMetric(float64(growth)/1024/sessions, "heap-KB/session")
				b.ReportMetric(float64(goroutines), "peak-goroutines")
			})
		}
	}
}

// batchResult is what one batch measured.
type batchResult struct {
	wall, cpu time.Duration
	peak      *peakSampler
}

// batch runs one session per slot, all at once, and fails the benchmark
// unless every one of them ends done after sessionSteps steps.
func batch(b *testing.B, m llm.Model, ws []slot) batchResult {
	peak := sample(time.Millisecond)
	cpu0, start := cpuTime(), time.Now()

	results := make([]*agent.Result, len(ws))
	var wg sync.WaitGroup
	for i, s := range ws {
		wg.Go(func() {
			results[i] = agent.Run(context.Background(), agent.Config{
				Model:  m,
				Tools:  s.tools,
				Root:   s.root,
				Events: &event.Recorder{},
				Retry:  retry.Policy{Retries: 3, Backoff: time.Millisecond},
			}, fmt.Sprintf("Task %d: summarise notes.md into out/summary.md.", i))
		})
	}
	wg.Wait()

	r := batchResult{wall: time.Since(start), cpu: cpuTime() - cpu0, peak: peak.end()}
	for i, res := range results {
		if res.Outcome != agent.Done || res.Steps != sessionSteps {
			b.Fatalf("session %d: %s after %d steps (%s), want done after %d", i, res.Outcome, res.Steps, res.Reason, sessionSteps)
		}
	}
	return r
}
