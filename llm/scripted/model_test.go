package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
)

var epoch = time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)

// setup parses yaml and returns a Model on a fake clock.
func setup(t *testing.T, yaml string) (*Model, *clock.Fake) {
	t.Helper()
	sc, err := Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	fake := clock.NewFake(epoch)
	return New(sc, Config{Clock: fake}), fake
}

// conversation is a request holding task and, after it, `steps` earlier
// assistant turns each answered by a user message.
func conversation(task string, steps int) *llm.Request {
	req := &llm.Request{System: "You are careful.", Messages: []llm.Message{llm.UserText(task)}}
	for i := range steps {
		req.Messages = append(req.Messages,
			llm.Message{Role: llm.Assistant, Content: []llm.Block{llm.Text(fmt.Sprintf("step %d", i))}},
			llm.UserText("go on"))
	}
	return req
}

func generateText(t *testing.T, m *Model, req *llm.Request) string {
	t.Helper()
	resp, err := m.Generate(context.Background(), req)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return resp.Message().Text()
}

func TestTurnsAreChosenByPosition(t *testing.T) {
	m, _ := setup(t, `turns: [{text: zero}, {text: one}, {text: two}]`)
	// Out of order on purpose: the position, not the call count, decides.
	for _, pos := range []int{2, 0, 1, 1} {
		t.Run(fmt.Sprintf("a request with %d assistant messages gets turn %d", pos, pos), func(t *testing.T) {
			got := generateText(t, m, conversation("task", pos))
			want := []string{"zero", "one", "two"}[pos]
			if got != want {
				t.Errorf("text = %q; want %q", got, want)
			}
		})
	}
}

func TestAfterTheLastTurn(t *testing.T) {
	t.Run("a scenario without loop answers a bad request naming script and position", func(t *testing.T) {
		m, _ := setup(t, `turns: [{text: only}]`)
		_, err := m.Generate(context.Background(), conversation("task", 1))
		want := &llm.Error{Provider: "scripted", Class: llm.BadRequest, Status: 400, Type: "invalid_request_error",
			Message: "scenario exhausted: script main has no turn at position 1", Header: http.Header{}}
		if diff := cmp.Diff(want, err); diff != "" {
			t.Errorf("error (-want +got):\n%s", diff)
		}
	})
	t.Run("a looping scenario repeats the last turn", func(t *testing.T) {
		m, _ := setup(t, "loop: true\nturns: [{text: first}, {text: again}]")
		for _, pos := range []int{1, 2, 5} {
			if got := generateText(t, m, conversation("task", pos)); got != "again" {
				t.Errorf("position %d: text = %q; want again", pos, got)
			}
		}
	})
}

func TestAttempts(t *testing.T) {
	const yaml = `
turns:
  - attempts: [{text: first}, {text: second}, {text: third}]
`
	t.Run("retrying the same request advances and the last attempt repeats", func(t *testing.T) {
		m, _ := setup(t, yaml)
		var got []string
		for range 4 {
			got = append(got, generateText(t, m, conversation("task", 0)))
		}
		if diff := cmp.Diff([]string{"first", "second", "third", "third"}, got); diff != "" {
			t.Errorf("texts (-want +got):\n%s", diff)
		}
	})
	t.Run("a different conversation starts at the first attempt", func(t *testing.T) {
		m, _ := setup(t, yaml)
		generateText(t, m, conversation("task A", 0))
		if got := generateText(t, m, conversation("task B", 0)); got != "first" {
			t.Errorf("text = %q; want first", got)
		}
	})
	t.Run("a different session starts at the first attempt", func(t *testing.T) {
		sc, err := Parse([]byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		a, b := New(sc, Config{Session: "a"}), New(sc, Config{Session: "b"})
		generateText(t, a, conversation("task", 0))
		generateText(t, a, conversation("task", 0))
		if got := generateText(t, b, conversation("task", 0)); got != "first" {
			t.Errorf("session b text = %q; want first", got)
		}
	})
}

func TestConcurrentConversationsFollowTheScenarioIndependently(t *testing.T) {
	m, _ := setup(t, `
turns:
  - attempts: [{status: 529}, {text: planned}]
  - attempts: [{drop: true}, {text: done}]
`)
	const workers = 64
	var wg sync.WaitGroup
	results := make([][]string, workers)
	for w := range workers {
		wg.Go(func() {
			task := fmt.Sprintf("task %d", w)
			for pos := range 2 {
				req := conversation(task, pos)
				var got []string
				for { // a minimal retry loop: each conversation sees its own attempts
					resp, err := m.Generate(context.Background(), req)
					if err != nil {
						got = append(got, string(llm.ClassOf(err)))
						continue
					}
					got = append(got, resp.Message().Text())
					break
				}
				results[w] = append(results[w], got...)
			}
		})
	}
	wg.Wait()
	want := []string{"overloaded", "planned", "connection", "done"}
	for w, got := range results {
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("worker %d (-want +got):\n%s", w, diff)
		}
	}
}

func TestCasesAndScripts(t *testing.T) {
	m, _ := setup(t, `
scripts:
  - name: judge
    when: {contains: "<final_answer>"}
    turns:
      - cases:
          - when: {matches: 'steps: [0-4]\b'}
            text: "FAIL: fewer than 5 steps"
          - when: {contains: [TODO], in: last}
            text: "FAIL: unfinished"
          - when: {not_contains: [step], in: all}
            text: "FAIL: no steps at all"
          - when: {contains: strict, in: system}
            text: "PASS (strict)"
          - text: PASS
  - name: worker
    turns: [{text: working}]
`)
	tests := []struct {
		name, system, last, want string
	}{
		{"a request without the judge marker plays the worker", "", "do the job", "working"},
		{"a regexp case matches", "", "<final_answer>steps: 3</final_answer>", "FAIL: fewer than 5 steps"},
		{"a contains case searches the last user message", "", "<final_answer>steps: 7 TODO</final_answer>", "FAIL: unfinished"},
		{"a not_contains case holds when the text is absent", "", "<final_answer>nothing</final_answer>", "FAIL: no steps at all"},
		{"a system case searches the system prompt", "be strict", "<final_answer>steps: 9</final_answer>", "PASS (strict)"},
		{"the case without when is the default", "", "<final_answer>steps: 9</final_answer>", "PASS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &llm.Request{System: tt.system, Messages: []llm.Message{llm.UserText(tt.last)}}
			if got := generateText(t, m, req); got != tt.want {
				t.Errorf("text = %q; want %q", got, tt.want)
			}
		})
	}
	t.Run("in last ignores earlier messages and the system prompt", func(t *testing.T) {
		req := &llm.Request{System: "TODO", Messages: []llm.Message{
			llm.UserText("TODO list"),
			llm.UserText("<final_answer>steps: 8</final_answer>"),
		}}
		if got := generateText(t, m, req); got != "PASS" {
			t.Errorf("text = %q; want PASS", got)
		}
	})
}

func TestNoMatchingScriptOrCaseIsABadRequest(t *testing.T) {
	m, _ := setup(t, `
scripts:
  - {name: only, when: {contains: magic}, turns: [{cases: [{when: {contains: nope}, text: x}]}]}
`)
	for _, task := range []string{"plain", "magic"} {
		_, err := m.Generate(context.Background(), conversation(task, 0))
		if llm.ClassOf(err) != llm.BadRequest {
			t.Errorf("task %q: error = %v; want a bad request", task, err)
		}
	}
}

func TestFaults(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		want  *llm.Error
	}{
		{
			"a 429 is rate-limited with its retry-after",
			`{status: 429, headers: {retry-after: "3"}}`,
			&llm.Error{Class: llm.RateLimited, Status: 429, Type: "rate_limit_error", Message: "scripted 429 Too Many Requests",
				RetryAfter: 3 * time.Second, Header: http.Header{"Retry-After": {"3"}}},
		},
		{
			"retry-after-ms wins over retry-after",
			`{status: 429, headers: {retry-after: "3", retry-after-ms: "5"}}`,
			&llm.Error{Class: llm.RateLimited, Status: 429, Type: "rate_limit_error", Message: "scripted 429 Too Many Requests",
				RetryAfter: 5 * time.Millisecond, Header: http.Header{"Retry-After": {"3"}, "Retry-After-Ms": {"5"}}},
		},
		{
			"a retry-after date is read against the injected clock",
			`{status: 503, headers: {retry-after: "Fri, 02 Jan 2026 03:00:10 GMT"}}`,
			&llm.Error{Class: llm.Overloaded, Status: 503, Type: "overloaded_error", Message: "scripted 503 Service Unavailable",
				RetryAfter: 10 * time.Second, Header: http.Header{"Retry-After": {"Fri, 02 Jan 2026 03:00:10 GMT"}}},
		},
		{
			"a 529 is overloaded",
			`{status: 529}`,
			&llm.Error{Class: llm.Overloaded, Status: 529, Type: "overloaded_error", Message: "scripted 529 ", Header: http.Header{}},
		},
		{
			"a 500 is transient",
			`{status: 500, error: {message: boom}}`,
			&llm.Error{Class: llm.Transient, Status: 500, Type: "api_error", Message: "boom", Header: http.Header{}},
		},
		{
			"a 429 insufficient_quota is quota, not rate-limited",
			`{status: 429, error: {type: insufficient_quota, message: "You exceeded your current quota"}}`,
			&llm.Error{Class: llm.Quota, Status: 429, Type: "insufficient_quota", Message: "You exceeded your current quota", Header: http.Header{}},
		},
		{
			"a 401 is auth",
			`{status: 401}`,
			&llm.Error{Class: llm.Auth, Status: 401, Type: "authentication_error", Message: "scripted 401 Unauthorized", Header: http.Header{}},
		},
		{
			"a drop is a connection failure",
			`{drop: true}`,
			&llm.Error{Class: llm.Connection, Message: "connection dropped mid-reply (scripted drop)", Err: io.ErrUnexpectedEOF},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := setup(t, "turns: ["+tt.reply+"]")
			_, err := m.Generate(context.Background(), conversation("task", 0))
			var got *llm.Error
			if !errors.As(err, &got) {
				t.Fatalf("error = %v (%T); want *llm.Error", err, err)
			}
			tt.want.Provider = "scripted"
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(llm.Error{}, "Err")); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if tt.want.Err != nil && !errors.Is(got, tt.want.Err) {
				t.Errorf("error %v does not wrap %v", got, tt.want.Err)
			}
		})
	}
}

// blockingClock is a clock whose Sleep waits for its context alone, and
// says when a sleep has begun, so a test can cancel during a delay.
type blockingClock struct{ sleeping chan time.Duration }

func (blockingClock) Now() time.Time { return epoch }

func (c blockingClock) Sleep(ctx context.Context, d time.Duration) error {
	c.sleeping <- d
	<-ctx.Done()
	return ctx.Err()
}

func TestDelay(t *testing.T) {
	const yaml = `turns: [{text: late, delay: 250ms}]`
	t.Run("a delay is waited on the injected clock", func(t *testing.T) {
		m, fake := setup(t, yaml)
		if got := generateText(t, m, conversation("task", 0)); got != "late" {
			t.Errorf("text = %q; want late", got)
		}
		if diff := cmp.Diff([]time.Duration{250 * time.Millisecond}, fake.Waits()); diff != "" {
			t.Errorf("waits (-want +got):\n%s", diff)
		}
	})
	t.Run("cancelling the context during a delay gives a canceled error", func(t *testing.T) {
		sc, _ := Parse([]byte(yaml))
		clk := blockingClock{sleeping: make(chan time.Duration)}
		m := New(sc, Config{Clock: clk})
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error)
		go func() {
			_, err := m.Generate(ctx, conversation("task", 0))
			errc <- err
		}()
		if d := <-clk.sleeping; d != 250*time.Millisecond {
			t.Errorf("sleep = %v; want 250ms", d)
		}
		cancel()
		err := <-errc
		if llm.ClassOf(err) != llm.Canceled || !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v; want class canceled wrapping context.Canceled", err)
		}
	})
	t.Run("a context already ended gives a canceled error without a reply", func(t *testing.T) {
		m, fake := setup(t, yaml)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := m.Generate(ctx, conversation("task", 0))
		if llm.ClassOf(err) != llm.Canceled || len(fake.Waits()) != 0 {
			t.Errorf("error = %v, waits = %v; want canceled and no wait", err, fake.Waits())
		}
	})
}

func TestReplies(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		want  *llm.Response
	}{
		{
			"tool calls get unique generated IDs that skip the scripted ones",
			`{text: "Reading.", tool_calls: [{name: read_file, input: {path: a}}, {id: toolu_1, name: list_dir}, {name: read_file, raw_input: '{"path": '}]}`,
			&llm.Response{
				Content: []llm.Block{
					llm.Text("Reading."),
					llm.ToolUse("toolu_2", "read_file", json.RawMessage(`{"path":"a"}`)),
					llm.ToolUse("toolu_1", "list_dir", json.RawMessage(`{}`)),
					llm.ToolUse("toolu_3", "read_file", json.RawMessage(`{"path": `)),
				},
				StopReason: llm.ToolUseStop,
			},
		},
		{
			"a truncated reply stops at max_tokens",
			`{text: "The five steps are: 1.", stop: max_tokens}`,
			&llm.Response{Content: []llm.Block{llm.Text("The five steps are: 1.")}, StopReason: llm.MaxTokens},
		},
		{
			"a refusal keeps its text",
			`{text: "I can't help with that.", stop: refusal}`,
			&llm.Response{Content: []llm.Block{llm.Text("I can't help with that.")}, StopReason: llm.Refusal},
		},
		{
			"an empty reply has no content and ends the turn",
			`{empty: true}`,
			&llm.Response{StopReason: llm.EndTurn},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := setup(t, "turns: ["+tt.reply+"]")
			got, err := m.Generate(context.Background(), conversation("task", 0))
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Model = "scripted"
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(llm.Response{}, "Header", "Usage")); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUsage(t *testing.T) {
	long := &llm.Request{Messages: []llm.Message{llm.UserText(strings.Repeat("word ", 400))}}
	tests := []struct {
		name    string
		reply   string
		req     *llm.Request
		in, out [2]int64 // inclusive bounds
	}{
		{"scripted counts are used as given", `{text: hi, usage: {input: 1000, output: 4096}}`, long, [2]int64{1000, 1000}, [2]int64{4096, 4096}},
		{"missing counts are about a quarter of the characters", `{text: "` + strings.Repeat("abcd", 50) + `"}`, long, [2]int64{500, 502}, [2]int64{50, 50}},
		{"an empty reply still counts one output token", `{empty: true, usage: {input: 7}}`, long, [2]int64{7, 7}, [2]int64{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := setup(t, "turns: ["+tt.reply+"]")
			resp, err := m.Generate(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			u := resp.Usage
			if u.InputTokens < tt.in[0] || u.InputTokens > tt.in[1] || u.OutputTokens < tt.out[0] || u.OutputTokens > tt.out[1] {
				t.Errorf("usage = %+v; want input in %v and output in %v", u, tt.in, tt.out)
			}
		})
	}
}
