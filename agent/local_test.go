package agent_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/llm/openai"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// Local model servers as people run them (issue 28), played by the
// simulator: in process, and over the OpenAI wire through the real
// provider, plain and streaming.

// wires are the ways a test reaches the simulator.
var wires = []string{"in process", "plain", "streaming"}

// onWire points f's run at the simulator playing yaml on wire.
func (f *fixture) onWire(t *testing.T, yaml, wire string) {
	t.Helper()
	if wire == "in process" {
		return // setup's model plays it
	}
	sc, err := scripted.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(scripted.NewServer(sc, scripted.ServerConfig{Clock: f.clock}))
	t.Cleanup(srv.Close)
	c, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "qwen", Stream: wire == "streaming", Clock: f.clock})
	if err != nil {
		t.Fatal(err)
	}
	f.model.Model = c
}

// local sets up a run on the simulator playing yaml on wire.
func local(t *testing.T, yaml, wire string, files map[string]string) *fixture {
	t.Helper()
	f := setup(t, yaml, files)
	f.onWire(t, yaml, wire)
	return f
}

// notes are six files of about 110 tokens each: reading them all grows the
// history past a 512-token window.
func notes() map[string]string {
	files := map[string]string{}
	for i := 1; i <= 6; i++ {
		files[fmt.Sprintf("note%d.txt", i)] = fmt.Sprintf("note%d: ", i) + strings.Repeat("the tide comes in and goes out ", 14)
	}
	return files
}

// reader reads the six notes one at a time, whatever the history holds
// (a compaction changes how many turns it has), and writes the summary a
// compaction asks for; reply is its last answer.
func reader(server, last string) string {
	return `server: {` + server + `}
loop: true
scripts:
  - name: summary
    when: {in: last, contains: "Reply with the summary only"}
    turns: [{text: "Read note1 to note3. Next: note4."}]
  - name: worker
    turns:
      - cases:
          - when: {in: last, contains: "note6:"}
            ` + last + `
          - when: {in: last, contains: "note5:"}
            tool_calls: [{name: read_file, input: {path: note6.txt}}]
          - when: {in: last, contains: "note4:"}
            tool_calls: [{name: read_file, input: {path: note5.txt}}]
          - when: {in: last, contains: "note3:"}
            tool_calls: [{name: read_file, input: {path: note4.txt}}]
          - when: {in: last, contains: "note2:"}
            tool_calls: [{name: read_file, input: {path: note3.txt}}]
          - when: {in: last, contains: "note1:"}
            tool_calls: [{name: read_file, input: {path: note2.txt}}]
          - when: {in: last, contains: "Next: note4"}
            tool_calls: [{name: read_file, input: {path: note4.txt}}]
          - tool_calls: [{name: read_file, input: {path: note1.txt}}]
`
}

// compacts returns the causes of the run's compactions ("" for the
// threshold's).
func (f *fixture) compacts() []string {
	var out []string
	for _, e := range f.events.Events() {
		if e.Type == "compact" {
			c, _ := e.Data["cause"].(string)
			out = append(out, c)
		}
	}
	return out
}

// caps are the output caps the worker's calls were sent with.
func (f *fixture) caps() []int {
	var out []int
	for _, r := range f.model.requests() {
		out = append(out, r.MaxTokens)
	}
	return out
}

// TestALongRunAgainstA512TokenWindowCompactsAndEndsDone: the run,
// against a server started with -c 512 whose chat template drops the
// tool schemas: with the window known (--context-window 512, or learnt
// from the server) it compacts and ends done; it ended api-failure after 9
// turns with 0 compactions, and with --context-window 512 given it never
// compacted either, its estimate counting the schemas the server drops.
func TestALongRunAgainstA512TokenWindowCompactsAndEndsDone(t *testing.T) {
	yaml := reader("window: 512, tools: ignored", `text: "Read all six notes."`)
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			f := local(t, yaml, wire, notes())
			f.cfg.Spec.ContextWindow = 512
			res := agent.Run(context.Background(), f.cfg, "Read note1.txt to note6.txt, in order.")
			if res.Outcome != agent.Done || res.Answer != "Read all six notes." {
				t.Fatalf("outcome %s (%s), answer %q", res.Outcome, res.Reason, res.Answer)
			}
			if c := f.compacts(); len(c) == 0 {
				t.Errorf("no compaction: %v", f.lines(""))
			}
			for _, r := range f.model.requests() {
				if r.MaxTokens*2 > agent.DefaultMaxTokens*2 {
					t.Errorf("a call with max_tokens %d", r.MaxTokens)
				}
			}
		})
	}
}

// TestAnOverflowErrorCompactsOnce: with no window known, the server's
// refusal (llama.cpp's exceed_context_size_error) names it; the history is
// compacted and the smaller request sent once, a new request and not a
// retry (issue 28: it ended api-failure).
func TestAnOverflowErrorCompactsOnce(t *testing.T) {
	yaml := reader("window: 512, tools: ignored", `text: "Read all six notes."`)
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			f := local(t, yaml, wire, notes())
			res := agent.Run(context.Background(), f.cfg, "Read note1.txt to note6.txt, in order.")
			if res.Outcome != agent.Done {
				t.Fatalf("outcome %s (%s)\n%s", res.Outcome, res.Reason, strings.Join(f.lines(""), "\n"))
			}
			c := f.compacts()
			if len(c) == 0 || c[0] != "overflow" {
				t.Errorf("compactions %q, want the first after the overflow", c)
			}
			if r := f.lines("retry"); len(r) != 0 {
				t.Errorf("retries %v: an overflow is not retried", r)
			}
			if st := res.State; st.Window != 512 {
				t.Errorf("the state's window %d, want the 512 the error named", st.Window)
			}
		})
	}
	t.Run("a prompt the server refuses again after the compaction ends the run context-full", func(t *testing.T) {
		files := notes()
		files["note3.txt"] = "note3: " + strings.Repeat("a very long note ", 200)
		f := local(t, reader("window: 512, tools: ignored", `text: "done"`), "in process", files)
		res := agent.Run(context.Background(), f.cfg, "Read note1.txt to note6.txt, in order.")
		if res.Outcome != agent.ContextFull || !errors.Is(res.Err, agent.ErrContextFull) {
			t.Fatalf("outcome %s (%s), want context-full", res.Outcome, res.Reason)
		}
		if !strings.Contains(res.Reason, "context window of 512 tokens is full") || strings.Contains(res.Reason, "max_tokens") {
			t.Errorf("reason %q: it names the window, not max_tokens", res.Reason)
		}
		if c := f.compacts(); len(c) != 1 {
			t.Errorf("compactions %q, want one: the request after it is sent once", c)
		}
	})
}

// TestAFullWindowLengthStopDoesNotDoubleTheCap: a reply that stops with
// "length" because the window is full, far below max_tokens, compacts
// instead of doubling the cap; when nothing can be dropped, the run ends
// context-full, naming the window (issue 28: it doubled the cap twice
// and ended truncated, "cut off by max_tokens 3 times in a row").
func TestAFullWindowLengthStopDoesNotDoubleTheCap(t *testing.T) {
	long := `text: "` + strings.Repeat("The tide comes in and the tide goes out. ", 40) + `"`
	for _, wire := range wires {
		t.Run(wire+": compacted, then done", func(t *testing.T) {
			// The long answer does not fit after note6 with note1 to 5
			// still in the history; once they are dropped it does.
			f := local(t, reader("window: 1024, tools: ignored", long), wire, notes())
			f.cfg.Spec.ContextWindow = 1024
			f.cfg.CompactAt = 0.95 // the threshold stays out of the way
			res := agent.Run(context.Background(), f.cfg, "Read note1.txt to note6.txt, in order.")
			if res.Outcome != agent.Done {
				t.Fatalf("outcome %s (%s)\n%s", res.Outcome, res.Reason, strings.Join(f.lines(""), "\n"))
			}
			if c := f.compacts(); len(c) != 1 || c[0] != "full" {
				t.Errorf("compactions %q, want one for the full window", c)
			}
			for _, n := range f.caps() {
				if n > agent.DefaultMaxTokens {
					t.Errorf("caps %v: doubled", f.caps())
				}
			}
			if l := f.lines("truncated"); len(l) != 0 {
				t.Errorf("truncated events %v", l)
			}
		})
		t.Run(wire+": nothing to drop, context-full", func(t *testing.T) {
			f := local(t, "server: {window: 512, tools: ignored}\nturns: [{"+long+"}]", wire, nil)
			f.cfg.Spec.ContextWindow = 512
			res := agent.Run(context.Background(), f.cfg, "Tell me about the tide. "+strings.Repeat("Be thorough. ", 60))
			if res.Outcome != agent.ContextFull || res.Steps != 1 {
				t.Fatalf("outcome %s after %d steps (%s), want context-full after 1", res.Outcome, res.Steps, res.Reason)
			}
			if !strings.Contains(res.Reason, "512 tokens") || strings.Contains(res.Reason, "max_tokens") {
				t.Errorf("reason %q: it names the window, not max_tokens", res.Reason)
			}
		})
	}
}

// TestAnEarlyCutToolCallIsRegenerated: cut before its name was complete,
// llama.cpp's tool call arrives as raw <tool_call> markup in the content
// (plain) or as nothing at all (streaming); both are regenerated with
// twice the cap, never continued as prose (issue 28).
func TestAnEarlyCutToolCallIsRegenerated(t *testing.T) {
	for _, tc := range []struct {
		wire, cut string
	}{
		{"in process", `{tool_calls: [{name: read_file, input: {path: note1.txt}}], markup: qwen, cut: 22}`},
		{"plain", `{tool_calls: [{name: read_file, input: {path: note1.txt}}], markup: qwen, cut: 22}`},
		{"plain", `{tool_calls: [{name: read_file, input: {path: note1.txt}}], markup: mistral, cut: 14}`},
		{"streaming", `{empty: true, stop: max_tokens}`},
		{"streaming", `{tool_calls: [{name: read_file, input: {path: note1.txt}}], markup: phi, cut: 16}`},
	} {
		t.Run(tc.wire+" "+tc.cut, func(t *testing.T) {
			yaml := `turns:
  - attempts:
      - ` + tc.cut + `
      - tool_calls: [{name: read_file, input: {path: note1.txt}}]
  - text: "read it"
`
			f := local(t, yaml, tc.wire, notes())
			f.cfg.Spec.MaxTokens = 8
			res := agent.Run(context.Background(), f.cfg, "Read note1.txt.")
			if res.Outcome != agent.Done || res.Answer != "read it" {
				t.Fatalf("outcome %s (%s) answer %q", res.Outcome, res.Reason, res.Answer)
			}
			if caps := f.caps(); len(caps) != 3 || caps[0] != 8 || caps[1] != 16 {
				t.Errorf("caps %v, want 8 then the regeneration's 16", caps)
			}
			for _, r := range f.model.requests() {
				for _, m := range r.Messages {
					if strings.Contains(m.Text(), "Continue exactly where it stopped") {
						t.Fatalf("the cut call was continued as text")
					}
				}
			}
			if got := f.lines("truncated"); len(got) != 1 || !strings.Contains(got[0], "regenerate") {
				t.Errorf("truncated events %q, want one regeneration", got)
			}
		})
	}
	t.Run("without tools, markup cut at max_tokens is text, continued", func(t *testing.T) {
		f := local(t, `turns:
  - {text: "<tool_call>\n<tool_call>\n", stop: max_tokens}
  - text: "hello"
`, "in process", nil)
		f.cfg.Tools = nil
		res := agent.Run(context.Background(), f.cfg, "Say hello.")
		if res.Outcome != agent.Done || !strings.HasPrefix(res.Answer, "<tool_call>") {
			t.Fatalf("outcome %s answer %q, want the text stitched", res.Outcome, res.Answer)
		}
	})
}

// TestTheCapLeavesTheWindowsRoom: vLLM refuses a prompt whose max_tokens
// does not fit the window beside it; the cap is what the window leaves,
// so a server started with --max-model-len 4096 answers the default cap
// of 4096 at all.
func TestTheCapLeavesTheWindowsRoom(t *testing.T) {
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			f := local(t, "server: {kind: vllm, window: 4096}\nturns: [{text: fine}]", wire, nil)
			f.cfg.Spec.ContextWindow = 4096
			res := agent.Run(context.Background(), f.cfg, "Say fine.")
			if res.Outcome != agent.Done {
				t.Fatalf("outcome %s (%s)", res.Outcome, res.Reason)
			}
			if caps := f.caps(); len(caps) != 1 || caps[0] >= 4096 || caps[0] < 3000 {
				t.Errorf("caps %v, want what the window leaves", caps)
			}
		})
	}
}

// TestAnUnpricedRunWithNoAnswerCostsUnknown: the README promises
// "unknown, never $0" for a model the table has no price for; a run whose
// only call failed printed $0.0000 (issue 28).
func TestAnUnpricedRunWithNoAnswerCostsUnknown(t *testing.T) {
	for _, tc := range []struct {
		name  string
		price budget.Pricer
		known bool
	}{
		{"unpriced: unknown", nil, false},
		{"unpriced by the table: unknown", func(llm.Usage) models.Cost { return models.Unknown }, false},
		{"priced: $0", func(llm.Usage) models.Cost { return models.USD(0) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := setup(t, "turns: [{status: 401}]", nil)
			f.cfg.Price = tc.price
			res := agent.Run(context.Background(), f.cfg, "x")
			if res.Outcome != agent.APIFailure || res.Cost.Known() != tc.known {
				t.Errorf("outcome %s cost %s, want known %v", res.Outcome, res.Cost, tc.known)
			}
		})
	}
}
