package agent_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/verify"
)

// tenthOfACentPerToken prices every token at $0.001.
func tenthOfACentPerToken(u llm.Usage) models.Cost { return models.USD(float64(u.Total()) / 1000) }

func TestBudgetStopsBeforeTheCallThatWouldCrossIt(t *testing.T) {
	// Each call: about 100 tokens in, 100 out, at $0.001 a token: the
	// calls cost $0.2 and a little more each as the history grows.
	f := setup(t, `
loop: true
turns:
  - tool_calls: [{name: write_file, input: {path: a.txt, content: "x"}}]
    usage: {input: 100, output: 100}
`, nil)
	f.cfg.Spec.LoopLimit = ptr(-1)
	f.cfg.Spec.BudgetUSD = 0.7
	f.cfg.Price = tenthOfACentPerToken
	res := agent.Run(context.Background(), f.cfg, "write")
	if res.Outcome != agent.Budget || !errors.Is(res.Err, budget.ErrExceeded) {
		t.Fatalf("outcome %s (%v), want budget", res.Outcome, res.Err)
	}
	if got := len(f.model.requests()); got != 3 || res.Steps != 3 || res.Calls != 3 {
		t.Errorf("%d calls made (steps %d), want 3: the fourth would cross $0.70", got, res.Steps)
	}
	if usd, _ := res.Cost.USD(); usd < 0.599 || usd > 0.601 {
		t.Errorf("cost %v, want $0.60: the refused call cost nothing", res.Cost)
	}
	if b := f.lines("budget"); len(b) != 1 || !strings.Contains(b[0], "would cross the budget of $0.7000") {
		t.Errorf("budget events %q", b)
	}
	if res.State == nil || res.State.Steps != 3 || len(res.State.Messages) != 7 {
		t.Errorf("state at the end %+v, want 3 steps and their 7 messages, to resume from", res.State)
	}
}

func TestTheJudgesCallsCountAgainstTheBudget(t *testing.T) {
	f := setup(t, `
scripts:
  - name: judge
    when: {in: system, contains: "strict verifier"}
    turns:
      - {text: "FAIL: not yet", usage: {input: 1000, output: 1000}}
  - name: worker
    turns:
      - {text: done, usage: {input: 10, output: 10}}
      - {text: done again, usage: {input: 10, output: 10}}
`, nil)
	f.cfg.Verifier = &verify.Verifier{Judge: &verify.Judge{Model: f.model.Model}}
	f.cfg.Spec.BudgetTokens = 2030
	res := agent.Run(context.Background(), f.cfg, "finish")
	if res.Outcome != agent.Budget {
		t.Fatalf("outcome %s (%s), want budget: the judge spent 2000 of 2030 tokens", res.Outcome, res.Reason)
	}
	if res.Usage.Total() != 2020 || res.Steps != 1 {
		t.Errorf("usage %d tokens after %d steps, want 2020 after 1", res.Usage.Total(), res.Steps)
	}
}

func TestTimeoutEndsARunWhoseModelTakesTooLong(t *testing.T) {
	f := setup(t, `
turns:
  - tool_calls: [{name: write_file, input: {path: a.txt, content: "x"}}]
  - {delay: 4h, text: "done at last"}
`, nil)
	f.cfg.Spec.Timeout = runspec.Duration(time.Hour)
	res := agent.Run(context.Background(), f.cfg, "write")
	if res.Outcome != agent.Timeout || !errors.Is(res.Err, agent.ErrTimeout) {
		t.Fatalf("outcome %s (%v), want timeout", res.Outcome, res.Err)
	}
	if got := f.clock.Now().Sub(time.Date(2026, 11, 29, 22, 0, 0, 0, time.UTC)); got != time.Hour {
		t.Errorf("the run ended %s in, want at its limit, 1h", got)
	}
	if !strings.Contains(res.Reason, "time limit of 1h0m0s") || res.State.Steps != 1 {
		t.Errorf("reason %q, state %d steps; want the limit named and the finished step kept", res.Reason, res.State.Steps)
	}
	if !res.Outcome.Paused() {
		t.Error("timeout is not a paused outcome")
	}
}

func TestLoopIsWarnedOnceThenEnded(t *testing.T) {
	f := setup(t, `
loop: true
turns:
  - tool_calls: [{name: read_file, input: {path: a.txt}}]
`, map[string]string{"a.txt": "same"})
	res := agent.Run(context.Background(), f.cfg, "read")
	if res.Outcome != agent.StepLimit || res.Reason != "loop: read_file repeated 4 times" || !errors.Is(res.Err, agent.ErrLoop) {
		t.Fatalf("outcome %s (%s), want step-limit 'loop: read_file repeated 4 times'", res.Outcome, res.Reason)
	}
	reqs := f.model.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d calls, want 4: three to make the loop, one after the warning", len(reqs))
	}
	warned := 0
	for _, m := range reqs[3].Messages {
		for _, b := range m.Content {
			if b.Type == llm.TextBlock && strings.Contains(b.Text, "same input 3 times in a row") {
				warned++
			}
		}
	}
	if warned != 1 {
		t.Errorf("the warning reached the model %d times, want once", warned)
	}
	if got := f.lines("loop"); !cmp.Equal(got, []string{"[loop · warned: read_file repeated 3 times]", "[loop · stopped: read_file repeated 4 times]"}) {
		t.Errorf("loop events %q", got)
	}
}

func TestLoopNeedsTheSameResultToo(t *testing.T) {
	// The same call whose result changes each time (a file another
	// process grows) is not a loop: the model is learning something.
	f := setup(t, `
turns:
  - tool_calls: [{name: read_file, input: {path: a.txt}}]
  - tool_calls: [{name: read_file, input: {path: a.txt}}]
  - tool_calls: [{name: read_file, input: {path: a.txt}}]
  - tool_calls: [{name: read_file, input: {path: a.txt}}]
  - text: done
`, map[string]string{"a.txt": "1"})
	grow := 0
	f.cfg.Events = event.Multi(f.events, event.SinkFunc(func(e event.Event) {
		if e.Type == "tool" {
			grow++
			os.WriteFile(filepath.Join(f.dir, "a.txt"), []byte(strings.Repeat("1", grow+1)), 0o644)
		}
	}))
	res := agent.Run(context.Background(), f.cfg, "read")
	if res.Outcome != agent.Done || len(f.lines("loop")) != 0 {
		t.Fatalf("outcome %s (%s), loop events %q; want done, no loop", res.Outcome, res.Reason, f.lines("loop"))
	}
}

func TestCostInTurnAndOutcomeEvents(t *testing.T) {
	f := setup(t, `
turns:
  - {text: done, usage: {input: 300, output: 200}}
`, nil)
	f.cfg.Price = tenthOfACentPerToken
	res := agent.Run(context.Background(), f.cfg, "finish")
	if res.Outcome != agent.Done {
		t.Fatalf("outcome %s", res.Outcome)
	}
	for _, e := range f.events.Events() {
		if e.Type != "turn" && e.Type != "outcome" {
			continue
		}
		if e.Data["cost_usd"] != 0.5 || e.Data["cache_read_tokens"] != int64(0) || e.Data["cache_write_tokens"] != int64(0) {
			t.Errorf("%s event data %v, want cost_usd 0.5 and the cache counts", e.Type, e.Data)
		}
	}
	if got := f.lines("outcome")[0]; !strings.HasSuffix(got, "cost=$0.5000]") {
		t.Errorf("outcome line %q, want the cost", got)
	}

	t.Run("an unknown cost is absent, never zero", func(t *testing.T) {
		f := setup(t, "turns: [{text: done}]", nil)
		res := agent.Run(context.Background(), f.cfg, "finish")
		for _, e := range f.events.Events() {
			if _, ok := e.Data["cost_usd"]; ok {
				t.Errorf("%s event has cost_usd %v without a price", e.Type, e.Data["cost_usd"])
			}
		}
		if res.Cost.Known() || !strings.HasSuffix(f.lines("outcome")[0], "cost=unknown]") {
			t.Errorf("cost %v, line %q", res.Cost, f.lines("outcome")[0])
		}
	})
}

// saver is a Checkpointer that keeps what it is told.
type saver struct {
	states  []*agent.State
	before  []string
	results []*llm.Block
}

func (s *saver) Save(st *agent.State) error {
	cp := *st
	cp.Messages = append([]llm.Message(nil), st.Messages...)
	s.states = append(s.states, &cp)
	return nil
}

func (s *saver) BeforeTool(_ context.Context, u llm.Block, c tool.Class) error {
	s.before = append(s.before, u.Name+" "+string(c))
	return nil
}

func (s *saver) AfterTool(u llm.Block, c tool.Class, b *llm.Block) error {
	s.results = append(s.results, b)
	return nil
}

func TestResumeFinishesThePendingCalls(t *testing.T) {
	// The run stopped while a reply's three calls ran: the first (a
	// write) has its result, the second (a read) and the third (a
	// write) have none.
	f := setup(t, `
turns:
  - tool_calls:
      - {id: w1, name: write_file, input: {path: a.txt, content: "a"}}
      - {id: r1, name: read_file, input: {path: b.txt}}
      - {id: w2, name: write_file, input: {path: c.txt, content: "c"}}
  - text: done
`, map[string]string{"b.txt": "bee"})
	reply := llm.Message{Role: llm.Assistant, Content: []llm.Block{
		llm.ToolUse("w1", "write_file", []byte(`{"path":"a.txt","content":"a"}`)),
		llm.ToolUse("r1", "read_file", []byte(`{"path":"b.txt"}`)),
		llm.ToolUse("w2", "write_file", []byte(`{"path":"c.txt","content":"c"}`)),
	}}
	sv := &saver{}
	f.cfg.Checkpoint = sv
	f.cfg.Resume = &agent.State{
		Messages: []llm.Message{llm.UserText("write them"), reply},
		Steps:    1, Spent: budget.Spend{Usage: llm.Usage{InputTokens: 10, OutputTokens: 10}},
		Pending: &agent.Pending{Results: []llm.Block{llm.ToolResult("w1", "wrote a.txt", false)}},
	}
	res := agent.Run(context.Background(), f.cfg, "write them")
	if res.Outcome != agent.Done || res.Steps != 2 || res.Calls != 1 {
		t.Fatalf("outcome %s (%s) after %d steps, %d calls; want done after 2 steps, 1 call", res.Outcome, res.Reason, res.Steps, res.Calls)
	}
	reqs := f.model.requests()
	results := reqs[0].Messages[2].Content
	if len(results) != 3 || results[0].Text != "wrote a.txt" || results[1].Text != "bee" || !results[2].IsError ||
		!strings.Contains(results[2].Text, "outcome of this write_file call is unknown") {
		t.Fatalf("results sent %+v", results)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "c.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Error("the write whose outcome was unknown was applied again")
	}
	if !cmp.Equal(sv.before, []string{"read_file read"}) {
		t.Errorf("tools run again: %v, want the read alone", sv.before)
	}
	if res.Usage.Total() <= 20 {
		t.Errorf("usage %d, want the earlier 20 tokens and this run's", res.Usage.Total())
	}
	if !strings.Contains(f.lines("start")[0], "resumed at step 1") {
		t.Errorf("start line %q", f.lines("start")[0])
	}
}
