package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/tool/fs"
	"github.com/nightshift-dev/nightshift/workspace"
)

// recorder wraps a model and keeps every request it was sent.
type recorder struct {
	llm.Model
	mu   sync.Mutex
	reqs []llm.Request
}

func (r *recorder) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	r.mu.Lock()
	cp := *req
	cp.Messages = append([]llm.Message(nil), req.Messages...)
	r.reqs = append(r.reqs, cp)
	r.mu.Unlock()
	return r.Model.Generate(ctx, req)
}

func (r *recorder) requests() []llm.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]llm.Request(nil), r.reqs...)
}

type fixture struct {
	cfg    agent.Config
	dir    string
	model  *recorder
	events *event.Recorder
	clock  *clock.Fake
}

// setup returns a run configuration on the scripted model playing yaml,
// in a fresh workspace holding files, with a fake clock and 3 retries.
func setup(t *testing.T, yaml string, files map[string]string) *fixture {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sc, err := scripted.Parse([]byte(yaml))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	fc := clock.NewFake(time.Date(2026, 11, 29, 22, 0, 0, 0, time.UTC))
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	tools, err := tool.NewSet(fs.Tools(root)...)
	if err != nil {
		t.Fatal(err)
	}
	m := &recorder{Model: scripted.New(sc, scripted.Config{Clock: fc})}
	ev := &event.Recorder{}
	return &fixture{
		cfg: agent.Config{
			Model: m, Tools: tools, Root: root, Events: ev, Clock: fc,
			Retry: retry.Policy{Retries: 3, Backoff: time.Second, Rand: func() float64 { return 0 }},
		},
		dir: dir, model: m, events: ev, clock: fc,
	}
}

func (f *fixture) lines(typ string) []string {
	var out []string
	for _, e := range f.events.Events() {
		if typ == "" || e.Type == typ {
			out = append(out, e.Line())
		}
	}
	return out
}

func TestRun(t *testing.T) {
	t.Run("a 429 is retried after its wait and the run finishes done", func(t *testing.T) {
		f := setup(t, `
turns:
  - attempts:
      - {status: 429, headers: {retry-after: "2"}}
      - {tool_calls: [{name: list_dir, input: {path: .}}]}
  - text: all done
`, map[string]string{"a.txt": "x"})
		res := agent.Run(context.Background(), f.cfg, "look around")
		if res.Outcome != agent.Done {
			t.Fatalf("outcome = %s (%s), want done", res.Outcome, res.Reason)
		}
		if diff := cmp.Diff([]string{"[retry · status=429 attempt=1 wait=2000ms retry-after=2s]"}, f.lines("retry")); diff != "" {
			t.Errorf("retry lines (-want +got):\n%s", diff)
		}
		if got := f.clock.Waits(); !cmp.Equal(got, []time.Duration{2 * time.Second}) {
			t.Errorf("waits = %v, want the server's 2s", got)
		}
		if res.Steps != 2 {
			t.Errorf("steps = %d, want 2: a retried call does not count again", res.Steps)
		}
		if res.Answer != "all done" {
			t.Errorf("answer = %q", res.Answer)
		}
	})

	t.Run("an invented tool is answered with an error listing the tools and the loop goes on", func(t *testing.T) {
		f := setup(t, `
turns:
  - tool_calls: [{name: search_file, input: {query: x}}]
  - text: found another way
`, nil)
		res := agent.Run(context.Background(), f.cfg, "find x")
		if res.Outcome != agent.Done {
			t.Fatalf("outcome = %s (%s)", res.Outcome, res.Reason)
		}
		reqs := f.model.requests()
		last := reqs[len(reqs)-1].Messages
		result := last[len(last)-1].Content[0]
		if !result.IsError || !strings.Contains(result.Text, "read_file") || !strings.Contains(result.Text, "search_file") {
			t.Errorf("tool result = %+v, want an error naming the invented tool and the real ones", result)
		}
	})

	t.Run("several tool calls in one reply all get their results, in order, in one message", func(t *testing.T) {
		f := setup(t, `
turns:
  - tool_calls:
      - {id: t1, name: read_file, input: {path: a.txt}}
      - {id: t2, name: read_file, input: {path: missing.txt}}
      - {id: t3, name: write_file, input: {path: b.txt, content: hello}}
  - text: done
`, map[string]string{"a.txt": "alpha"})
		res := agent.Run(context.Background(), f.cfg, "copy")
		if res.Outcome != agent.Done {
			t.Fatalf("outcome = %s (%s)", res.Outcome, res.Reason)
		}
		reqs := f.model.requests()
		msgs := reqs[1].Messages
		results := msgs[len(msgs)-1]
		var ids []string
		var errs []bool
		for _, b := range results.Content {
			ids = append(ids, b.ToolUseID)
			errs = append(errs, b.IsError)
		}
		if diff := cmp.Diff([]string{"t1", "t2", "t3"}, ids); diff != "" {
			t.Errorf("result order (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]bool{false, true, false}, errs); diff != "" {
			t.Errorf("is_error (-want +got):\n%s", diff)
		}
		if b, _ := os.ReadFile(filepath.Join(f.dir, "b.txt")); string(b) != "hello" {
			t.Errorf("b.txt = %q", b)
		}
		if n := len(f.lines("tool")); n != 3 {
			t.Errorf("tool events = %d, want one per call", n)
		}
	})

	t.Run("the step brake trips at max steps with no negotiation", func(t *testing.T) {
		f := setup(t, `
loop: true
turns:
  - tool_calls: [{name: list_dir, input: {path: .}}]
`, nil)
		f.cfg.Spec.MaxSteps = 5
		f.cfg.Spec.LoopLimit = ptr(-1) // the same call again and again: the loop detector would stop it first
		res := agent.Run(context.Background(), f.cfg, "loop forever")
		if res.Outcome != agent.StepLimit || res.Steps != 5 || len(f.model.requests()) != 5 {
			t.Fatalf("outcome %s after %d steps and %d calls, want step-limit after 5", res.Outcome, res.Steps, len(f.model.requests()))
		}
	})

	t.Run("cut free text is continued and stitched into one answer, each continuation a step", func(t *testing.T) {
		f := setup(t, `
turns:
  - {text: "The first half, ", stop: max_tokens}
  - {text: "and the second half.", stop: max_tokens}
  - text: " The end."
`, nil)
		res := agent.Run(context.Background(), f.cfg, "write")
		if res.Outcome != agent.Done || res.Answer != "The first half, and the second half. The end." {
			t.Fatalf("outcome %s answer %q", res.Outcome, res.Answer)
		}
		if res.Steps != 3 {
			t.Errorf("steps = %d, want 3", res.Steps)
		}
	})

	t.Run("a cut tool call is regenerated whole with twice the max tokens", func(t *testing.T) {
		f := setup(t, `
turns:
  - attempts:
      - {tool_calls: [{name: write_file, raw_input: '{"path": "a.txt", "cont'}], stop: max_tokens}
      - {tool_calls: [{name: write_file, input: {path: a.txt, content: whole}}]}
  - text: written
`, nil)
		f.cfg.Spec.MaxTokens = 1000
		res := agent.Run(context.Background(), f.cfg, "write a.txt")
		if res.Outcome != agent.Done {
			t.Fatalf("outcome = %s (%s)", res.Outcome, res.Reason)
		}
		var caps []int
		for _, r := range f.model.requests() {
			caps = append(caps, r.MaxTokens)
		}
		if diff := cmp.Diff([]int{1000, 2000, 2000}, caps); diff != "" {
			t.Errorf("max_tokens per call (-want +got):\n%s", diff)
		}
		if b, _ := os.ReadFile(filepath.Join(f.dir, "a.txt")); string(b) != "whole" {
			t.Errorf("a.txt = %q, want the regenerated content", b)
		}
	})

	t.Run("three cuts in a row end the run as truncated", func(t *testing.T) {
		f := setup(t, `
turns:
  - attempts:
      - {tool_calls: [{name: write_file, raw_input: '{"pa'}], stop: max_tokens}
`, nil)
		res := agent.Run(context.Background(), f.cfg, "write")
		if res.Outcome != agent.Truncated || res.Steps != 3 {
			t.Fatalf("outcome %s after %d steps, want truncated after 3", res.Outcome, res.Steps)
		}
	})

	t.Run("an answer failing the output schema goes back with the validator's message", func(t *testing.T) {
		f := setup(t, `
turns:
  - text: '{"count": 3'
  - text: '{"count": "three"}'
  - text: '{"count": 3}'
`, nil)
		f.cfg.OutputSchema = resolve(t, `{"type":"object","properties":{"count":{"type":"integer"}},"required":["count"]}`)
		res := agent.Run(context.Background(), f.cfg, "count")
		if res.Outcome != agent.Done || res.Steps != 3 {
			t.Fatalf("outcome %s after %d steps (%s)", res.Outcome, res.Steps, res.Reason)
		}
		reqs := f.model.requests()
		first := lastText(reqs[1])
		if !strings.Contains(first, "unexpected EOF") {
			t.Errorf("feedback after broken JSON = %q, want the parser's message", first)
		}
		second := lastText(reqs[2])
		if !strings.Contains(second, "count") {
			t.Errorf("feedback after a schema failure = %q, want the validator's message", second)
		}
	})

	t.Run("wrong content is not retried", func(t *testing.T) {
		for _, tc := range []struct {
			name, yaml, want string
		}{
			{"a 400", `{turns: [{status: 400}]}`, "bad-request"},
			{"a 401", `{turns: [{status: 401}]}`, "auth"},
			{"a quota 429", `{turns: [{status: 429, error: {type: insufficient_quota, message: "You exceeded your current quota"}}]}`, "quota"},
			{"an Anthropic credit 400", `{turns: [{status: 400, error: {type: invalid_request_error, message: "Your credit balance is too low"}}]}`, "quota"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				f := setup(t, tc.yaml, nil)
				res := agent.Run(context.Background(), f.cfg, "x")
				if res.Outcome != agent.APIFailure || len(f.model.requests()) != 1 {
					t.Fatalf("outcome %s after %d calls, want api-failure after 1", res.Outcome, len(f.model.requests()))
				}
				if llm.ClassOf(res.Err) != llm.Class(tc.want) {
					t.Errorf("class = %s, want %s", llm.ClassOf(res.Err), tc.want)
				}
				if tc.want == "quota" && !strings.Contains(res.Reason, "quota") {
					t.Errorf("reason %q does not say it is a quota problem", res.Reason)
				}
			})
		}
	})

	t.Run("retries N means at most N+1 calls, then api-failure", func(t *testing.T) {
		f := setup(t, `{turns: [{status: 503}]}`, nil)
		f.cfg.Retry.Retries = 2
		res := agent.Run(context.Background(), f.cfg, "x")
		if res.Outcome != agent.APIFailure || len(f.model.requests()) != 3 {
			t.Fatalf("outcome %s after %d calls, want api-failure after 3", res.Outcome, len(f.model.requests()))
		}
		if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, f.clock.Waits()); diff != "" {
			t.Errorf("waits (-want +got):\n%s", diff)
		}
	})

	t.Run("a cancelled context ends the run as interrupted", func(t *testing.T) {
		f := setup(t, `{turns: [{text: hi}]}`, nil)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res := agent.Run(ctx, f.cfg, "x")
		if res.Outcome != agent.Interrupted {
			t.Fatalf("outcome = %s", res.Outcome)
		}
	})

	t.Run("an empty answer is a FAIL fed back, not a done", func(t *testing.T) {
		f := setup(t, `
turns:
  - empty: true
  - text: here it is
`, nil)
		res := agent.Run(context.Background(), f.cfg, "answer")
		if res.Outcome != agent.Done || res.Steps != 2 {
			t.Fatalf("outcome %s after %d steps", res.Outcome, res.Steps)
		}
		if got := lastText(f.model.requests()[1]); !strings.HasPrefix(got, "[verifier] FAIL: ") {
			t.Errorf("feedback = %q", got)
		}
		if res.FailsByCheck["not-empty"] != 1 {
			t.Errorf("fails by check = %v", res.FailsByCheck)
		}
	})

	t.Run("every event carries the run and ends with the outcome", func(t *testing.T) {
		f := setup(t, `{turns: [{text: hi}]}`, nil)
		res := agent.Run(context.Background(), f.cfg, "x")
		evs := f.events.Events()
		if evs[len(evs)-1].Type != "outcome" {
			t.Errorf("last event = %s", evs[len(evs)-1].Type)
		}
		for _, e := range evs {
			if e.Run != res.RunID {
				t.Errorf("event %s has run %q, want %q", e.Type, e.Run, res.RunID)
			}
		}
	})
}

func lastText(r llm.Request) string {
	return r.Messages[len(r.Messages)-1].Text()
}

func TestOnEndReportsBeforeTheOutcome(t *testing.T) {
	f := setup(t, `{turns: [{status: 400}]}`, nil)
	var seen agent.Outcome
	f.cfg.OnEnd = func(res *agent.Result) {
		seen = res.Outcome
		f.events.Emit(event.Event{Type: "rollback"})
	}
	res := agent.Run(context.Background(), f.cfg, "x")
	if seen != agent.APIFailure || res.Outcome != agent.APIFailure {
		t.Fatalf("OnEnd saw %q, result %q", seen, res.Outcome)
	}
	types := f.events.Types()
	if diff := cmp.Diff([]string{"rollback", "outcome"}, types[len(types)-2:]); diff != "" {
		t.Errorf("last events (-want +got):\n%s", diff)
	}
}
