package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/anthropic"
	"github.com/nightshift-dev/nightshift/llm/openai"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/tool"
)

// sizedTool is a read tool that answers from memory with a result of a
// set size, so that neither the file system nor the model hides the
// harness's own cost.
type sizedTool struct{ result string }

func (sizedTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "recall",
		Description: "Recall a note by path.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
	}
}
func (sizedTool) Class() tool.Class { return tool.Read }
func (t sizedTool) Run(context.Context, json.RawMessage) tool.Result {
	return tool.OK(t.result)
}

// cannedServer answers every call at once with a tool call of its own
// (a fresh ID each time), in the wire format of the route, reading the
// request body whole and decoding none of it: a server that answers in
// microseconds, so that what a step costs is the harness's.
func cannedServer(b *testing.B) *httptest.Server {
	var n atomic.Int64
	// A body is read in large pieces, as a server on another machine
	// would take it off the network: little of the server's own cost
	// should be counted in the harness's.
	bufs := sync.Pool{New: func() any { return new([256 << 10]byte) }}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := bufs.Get().(*[256 << 10]byte)
		for {
			if _, err := r.Body.Read(buf[:]); err != nil {
				break
			}
		}
		bufs.Put(buf)
		id := n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/messages") {
			fmt.Fprintf(w, `{"id":"msg_%d","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_%d","name":"recall","input":{"path":"notes/n%d.md"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":1000,"output_tokens":20}}`, id, id, id%4)
			return
		}
		fmt.Fprintf(w, `{"id":"chatcmpl-%d","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"recall","arguments":"{\"path\":\"notes/n%d.md\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1010,"completion_tokens":20,"total_tokens":1030,"prompt_tokens_details":{"cached_tokens":1000}}}`, id, id, id%4)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// stepClock records, at each turn event, the wall clock and the
// process's CPU time: what step k cost is the difference between the
// marks of turns k-1 and k (its model call, and the tools and harness
// work of step k-1 before it).
type stepClock struct {
	mu   sync.Mutex
	wall []time.Time
	cpu  []time.Duration
}

func (s *stepClock) Emit(e event.Event) {
	if e.Type != "turn" {
		return
	}
	now, c := time.Now(), cpuTime()
	s.mu.Lock()
	s.wall, s.cpu = append(s.wall, now), append(s.cpu, c)
	s.mu.Unlock()
}

// around returns the cost of a typical step among steps from-to (1-based,
// inclusive): the median of their wall times, and their mean wall and
// CPU times.
func (s *stepClock) around(from, to int) (typical, wall, cpu time.Duration) {
	var walls []time.Duration
	for k := from; k <= to; k++ {
		w := s.wall[k-1].Sub(s.wall[k-2])
		walls = append(walls, w)
		wall += w
		cpu += s.cpu[k-1] - s.cpu[k-2]
	}
	n := time.Duration(to - from + 1)
	return median(walls), wall / n, cpu / n
}

// BenchmarkStepCost measures what one step of a long run costs the
// harness, end to end against a local server that answers at once
// (cannedServer): the loop, the retry layer and the meter, the request
// built and encoded by the provider (each earlier message's encoding
// kept, llm/internal/encoded), the HTTP round trip, the reply decoded,
// the tool run, the events. Each iteration is a whole 201-step run. A
// run's step10-ns and step200-ns are the mean wall times of its steps
// 6-14 and 192-200, and ratio-200/10 compares them; step10-median-ns and
// step200-median-ns are the median of the same nine steps, a typical
// step: on a virtual machine with two vCPUs a step now and then waits
// 100-200 µs for a sleeping vCPU to take the network's wake-up (seen in
// the runtime trace: a goroutine runnable, no thread running it), which a
// mean keeps and a median mostly does not. cpu-ns is the process's mean
// CPU time per step, the server's included. Every figure is the median
// over the runs.
//
//	go test ./agent -run '^$' -bench StepCost -benchtime 5x
func BenchmarkStepCost(b *testing.B) {
	for _, wire := range []string{"anthropic", "openai"} {
		for _, size := range []int{200, 20 << 10} {
			b.Run(fmt.Sprintf("wire=%s/result=%dB", wire, size), func(b *testing.B) {
				srv := cannedServer(b)
				var m llm.Model
				var err error
				if wire == "anthropic" {
					m, err = anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "k", Model: "m"})
				} else {
					m, err = openai.New(openai.Config{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m"})
				}
				if err != nil {
					b.Fatal(err)
				}
				set, err := tool.NewSet(sizedTool{result: strings.Repeat("x", size)})
				if err != nil {
					b.Fatal(err)
				}
				var t10, w10, c10, t200, w200, c200 []time.Duration
				for b.Loop() {
					sc := &stepClock{}
					res := agent.Run(context.Background(), agent.Config{
						Model: m, Spec: runspec.Spec{Model: runspec.Model{ModelName: "m"}, Limits: runspec.Limits{MaxSteps: 201, LoopLimit: ptr(-1)}}, Tools: set,
						Retry: retry.Policy{Retries: 3}, Events: event.Multi(&event.Recorder{}, sc),
					}, "Recall every note, one per step.")
					if res.Outcome != agent.StepLimit || len(sc.wall) != 201 {
						b.Fatalf("outcome %s after %d steps (%s)", res.Outcome, res.Steps, res.Reason)
					}
					t, w, c := sc.around(6, 14)
					t10, w10, c10 = append(t10, t), append(w10, w), append(c10, c)
					t, w, c = sc.around(192, 200)
					t200, w200, c200 = append(t200, t), append(w200, w), append(c200, c)
				}
				b.ReportMetric(float64(median(w10)), "step10-ns")
				b.ReportMetric(float64(median(w200)), "step200-ns")
				b.ReportMetric(float64(median(w200))/float64(median(w10)), "ratio-200/10")
				b.ReportMetric(float64(median(t10)), "step10-median-ns")
				b.ReportMetric(float64(median(t200)), "step200-median-ns")
				b.ReportMetric(float64(median(c10)), "step10-cpu-ns")
				b.ReportMetric(float64(median(c200)), "step200-cpu-ns")
			})
		}
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
