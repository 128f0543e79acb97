package lifecycle_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/anthropic"
	"github.com/nightshift-dev/nightshift/llm/openai"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/verify"
	"github.com/nightshift-dev/nightshift/workspace"
)

// events returns the recorded events of one type.
func eventsOf(rec *event.Recorder, typ string) []event.Event {
	var out []event.Event
	for _, e := range rec.Events() {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func num(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int:
		return int64(n)
	case float64:
		return int64(n)
	}
	return 0
}

// readSteps is a scenario of n-1 steps that read notes.md and a final
// answer.
func readSteps(n int) string {
	var b strings.Builder
	b.WriteString("turns:\n")
	for range n - 1 {
		b.WriteString("  - tool_calls: [{name: read_file, input: {path: notes.md}}]\n")
	}
	b.WriteString("  - text: \"Read the notes, as asked.\"\n")
	return b.String()
}

// TestCachingReadsMostOfAPromptFromTheCache is the acceptance: a
// 20-step run whose system prompt and tools are at least 4,096 estimated
// tokens, against the simulator on each wire (claude-haiku-4-5 caches
// nothing shorter), reads at least 80 % of its input tokens from the
// cache on every step from the third on; with NoCache, Anthropic reads
// none (OpenAI caches without being asked).
func TestCachingReadsMostOfAPromptFromTheCache(t *testing.T) {
	system := agent.DefaultSystem + "\n\nHouse rules:\n" + strings.Repeat("Keep every line of the notes as it is. ", 420)
	for _, wire := range []string{"anthropic", "openai"} {
		for _, noCache := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, no-cache=%t", wire, noCache), func(t *testing.T) {
				f := setup(t, readSteps(20))
				sc, err := scripted.Parse([]byte(readSteps(20)))
				if err != nil {
					t.Fatal(err)
				}
				hs := httptest.NewServer(scripted.NewServer(sc, scripted.ServerConfig{Clock: f.clock}))
				t.Cleanup(hs.Close)
				var m llm.Model
				name := "claude-haiku-4-5"
				if wire == "anthropic" {
					m, err = anthropic.New(anthropic.Config{BaseURL: hs.URL, Model: name})
				} else {
					name = "gpt-6-luna"
					m, err = openai.New(openai.Config{BaseURL: hs.URL + "/v1", Model: name})
				}
				if err != nil {
					t.Fatal(err)
				}
				f.cfg.Model, f.cfg.Spec.ModelName, f.cfg.System, f.cfg.Spec.NoCache = m, name, system, noCache
				f.cfg.Spec.MaxSteps, f.cfg.Spec.LoopLimit = 20, ptr(-1)
				res := f.run(t)
				if res.Outcome != agent.Done || res.Steps != 20 {
					t.Fatalf("outcome %s after %d steps: %s", res.Outcome, res.Steps, res.Reason)
				}
				turns := eventsOf(f.events, "turn")
				if in := num(turns[0].Data["input_tokens"]); in < 4096 {
					t.Fatalf("the first prompt is %d tokens, want the head alone at least 4,096", in)
				}
				var in, read int64
				for i, e := range turns {
					stepIn, stepRead := num(e.Data["input_tokens"]), num(e.Data["cache_read_tokens"])
					if i+1 < 3 {
						continue
					}
					in, read = in+stepIn, read+stepRead
					switch {
					case noCache && wire == "anthropic" && stepRead != 0:
						t.Errorf("step %d read %d tokens from the cache with caching off", i+1, stepRead)
					case !noCache && stepRead*5 < stepIn*4:
						t.Errorf("step %d: %d of %d input tokens read from the cache, under 80 %%", i+1, stepRead, stepIn)
					}
				}
				t.Logf("steps 3-20: %d of %d input tokens read from the cache (%.1f %%); run usage %+v", read, in, 100*float64(read)/float64(in), res.Usage)
			})
		}
	}
}

// summaryScenario is a worker that reads big.txt until its history is
// compacted and then answers; a compaction call gets a summary.
const summaryScenario = `
loop: true
scripts:
  - name: summary
    when: {contains: "about to outgrow", in: last}
    turns: [{text: "SUMMARY-7Q: big.txt was read 4 times; nothing is left to do but answer."}]
  - name: after
    when: {contains: "were replaced by a summary"}
    turns: [{text: "Read big.txt; done."}]
  - name: main
    turns: [{tool_calls: [{name: read_file, input: {path: big.txt}}]}]
`

// bigFile writes big.txt, the file summaryScenario's worker reads until
// its history outgrows a window of a few thousand tokens.
func bigFile(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("a line of the big file\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// judgeSpy is a judge model that passes everything and keeps what it
// was shown.
type judgeSpy struct {
	mu   sync.Mutex
	seen []string
}

func (j *judgeSpy) Generate(_ context.Context, req *llm.Request) (*llm.Response, error) {
	b, _ := json.Marshal(req)
	j.mu.Lock()
	j.seen = append(j.seen, string(b))
	j.mu.Unlock()
	return &llm.Response{Content: []llm.Block{llm.Text("PASS\nbig.txt was read.")}, StopReason: llm.EndTurn}, nil
}

// TestAHistoryPastTheWindowIsCompactedOnce: a run whose history grows
// past 80 % of a 4,000-token window compacts once (a compact event, the
// summary call counted), goes on with the summary and the latest turns,
// and finishes; the judge's request never holds the summary.
func TestAHistoryPastTheWindowIsCompactedOnce(t *testing.T) {
	f := setup(t, summaryScenario)
	bigFile(t, f.dir)
	var requests []*llm.Request
	inner := f.cfg.Model
	f.cfg.Model = llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		requests = append(requests, req)
		return inner.Generate(ctx, req)
	})
	judge := &judgeSpy{}
	f.cfg.Verifier = &verify.Verifier{Judge: &verify.Judge{Model: judge}}
	f.cfg.Spec.ContextWindow, f.cfg.ResultCap, f.cfg.Spec.MaxSteps, f.cfg.Spec.LoopLimit = 4000, 1<<20, 30, ptr(-1)
	res := f.run(t)
	if res.Outcome != agent.Done {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	compacts := eventsOf(f.events, "compact")
	if len(compacts) != 1 {
		t.Fatalf("%d compact events, want 1", len(compacts))
	}
	c := compacts[0].Data
	if c["summary"] != "model" || num(c["after_tokens"]) >= num(c["before_tokens"]) || num(c["before_tokens"]) <= 3200 {
		t.Errorf("compact event %v", c)
	}
	// The call after the compaction: the compacted head holds the task
	// and the summary, the dropped turns are gone, the latest kept.
	var after *llm.Request
	for i, r := range requests {
		if strings.Contains(r.Messages[len(r.Messages)-1].Text(), "about to outgrow") {
			after = requests[i+1]
		}
	}
	if after == nil {
		t.Fatal("no summary call was made")
	}
	head := after.Messages[0].Text()
	if !strings.Contains(head, "work on notes.md") || !strings.Contains(head, "SUMMARY-7Q") || after.Messages[1].Role != llm.Assistant {
		t.Errorf("the compacted history opens with %q, then a %s turn", head, after.Messages[1].Role)
	}
	if n := len(after.Messages); int64(n) >= num(c["messages_before"]) || int64(n) != num(c["messages_after"]) {
		t.Errorf("%d messages after the compaction; event %v", n, c)
	}
	if res.Usage.OutputTokens == 0 || len(eventsOf(f.events, "turn")) != res.Steps {
		t.Errorf("usage %+v, %d turns for %d steps", res.Usage, len(eventsOf(f.events, "turn")), res.Steps)
	}
	if len(judge.seen) == 0 {
		t.Fatal("the judge was not asked")
	}
	for _, s := range judge.seen {
		if strings.Contains(s, "SUMMARY-7Q") || strings.Contains(s, "about to outgrow") {
			t.Errorf("the judge's request holds the summary: %s", s)
		}
	}
}

// stopper is a read tool that cancels the run: the run pauses
// (interrupted) with its checkpoint kept.
type stopper struct{ cancel context.CancelFunc }

func (s stopper) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "stop_here", Description: "Stop.", InputSchema: json.RawMessage(`{"type":"object"}`)}
}
func (s stopper) Class() tool.Class { return tool.Read }
func (s stopper) Run(context.Context, json.RawMessage) tool.Result {
	s.cancel()
	return tool.OK("stopped")
}

// TestACompactedHistoryIsWhatAResumedRunGoesOnFrom: the checkpoint log
// holds the history as the compaction left it, not the dropped turns
// with the new ones appended.
func TestACompactedHistoryIsWhatAResumedRunGoesOnFrom(t *testing.T) {
	yaml := strings.Replace(summaryScenario, `turns: [{text: "Read big.txt; done."}]`, `turns: [{tool_calls: [{name: stop_here}]}]`, 1)
	f := setup(t, yaml)
	bigFile(t, f.dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.cfg.Tools = func(root *workspace.Root) []tool.Tool {
		return append(lifecycle.DefaultTools(root), stopper{cancel})
	}
	f.cfg.Spec.ContextWindow, f.cfg.ResultCap, f.cfg.Spec.MaxSteps, f.cfg.RunID, f.cfg.Spec.LoopLimit = 4000, 1<<20, 30, "compacted-run", ptr(-1)
	res, err := lifecycle.Run(ctx, f.cfg, "work on notes.md")
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != agent.Interrupted {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	ck, err := lifecycle.ReadCheckpoint(f.cfg, "compacted-run")
	if err != nil {
		t.Fatal(err)
	}
	msgs := ck.State.Messages
	if !strings.Contains(msgs[0].Text(), "SUMMARY-7Q") || ck.State.Compactions != 1 {
		t.Fatalf("the checkpoint's history opens with %q (%d compactions)", msgs[0].Text(), ck.State.Compactions)
	}
	want := res.State.Messages
	if len(msgs) != len(want) {
		t.Errorf("the checkpoint holds %d messages, the run had %d", len(msgs), len(want))
	}
}

// TestABigToolResultIsCutAndReadBack: a result over the cap is kept in
// the run's state and the history holds its head, its tail and a note;
// read_result, a tool from then on, returns the rest.
func TestABigToolResultIsCutAndReadBack(t *testing.T) {
	body := strings.Repeat("0123456789", 400) + "THE-END"
	f := setup(t, `
turns:
  - tool_calls: [{name: read_file, input: {path: big.txt}}]
  - tool_calls: [{id: toolu_r1, name: read_result, input: {id: toolu_1, offset: 1500}}]
  - text: "Read it all."
`)
	if err := os.WriteFile(filepath.Join(f.dir, "big.txt"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var requests []*llm.Request
	inner := f.cfg.Model
	f.cfg.Model = llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		requests = append(requests, req)
		return inner.Generate(ctx, req)
	})
	f.cfg.ResultCap = 4000
	res := f.run(t)
	if res.Outcome != agent.Done {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	cut := requests[1].Messages[2].Content[0].Text
	if len(cut) > 4000 || !strings.HasPrefix(cut, "0123456789") || !strings.HasSuffix(cut, "THE-END") ||
		!strings.Contains(cut, `read_result {"id": "toolu_1", "offset": 1500}`) {
		t.Errorf("the cut result (%d bytes):\n%s", len(cut), cut)
	}
	var names []string
	for _, s := range requests[1].Tools {
		names = append(names, s.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "read_result") {
		t.Errorf("tools after the cut: %v", names)
	}
	if strings.Contains(strings.Join(toolNames(*requests[0]), ","), "read_result") {
		t.Errorf("read_result was a tool before any result was cut")
	}
	back := requests[2].Messages[4].Content[0]
	if back.IsError || !strings.HasPrefix(back.Text, body[1500:1510]) || !strings.Contains(back.Text, `"offset": 3500`) {
		t.Errorf("read_result returned (%d bytes): %.200s…", len(back.Text), back.Text)
	}
	if cuts := eventsOf(f.events, "cut"); len(cuts) != 1 || num(cuts[0].Data["bytes"]) != int64(len(body)) {
		t.Errorf("cut events %v", cuts)
	}
}

// fallbackSetup gives f a fallback model playing yaml as "small".
func fallbackSetup(t *testing.T, f *fixture, yaml string) {
	t.Helper()
	sc, err := scripted.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	f.cfg.Spec.ModelName = "big"
	f.cfg.Fallback = &agent.Fallback{Model: scripted.New(sc, scripted.Config{Clock: f.clock}), ModelName: "small"}
}

// TestAPrimaryOverloadedPastItsRetriesFallsBack: the primary answers 529
// to every call; once its retries run out the fallback answers, the run
// finishes done, and the primary is not asked again while it rests.
func TestAPrimaryOverloadedPastItsRetriesFallsBack(t *testing.T) {
	f := setup(t, `{loop: true, turns: [{status: 529}]}`)
	fallbackSetup(t, f, writeThenDone)
	var primaryCalls int
	inner := f.cfg.Model
	f.cfg.Model = llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		primaryCalls++
		return inner.Generate(ctx, req)
	})
	f.cfg.Retry = retry.Policy{Retries: 2}
	res := f.run(t)
	if res.Outcome != agent.Done {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	fb := eventsOf(f.events, "fallback")
	if len(fb) != 1 || fb[0].Data["reason"] != "exhausted" || fb[0].Data["class"] != string(llm.Overloaded) ||
		fb[0].Data["from"] != "big" || fb[0].Data["to"] != "small" {
		t.Fatalf("fallback events %v", fb)
	}
	if primaryCalls != 3 {
		t.Errorf("the primary was called %d times, want 3 (one call and 2 retries, then it rests)", primaryCalls)
	}
	for _, e := range eventsOf(f.events, "turn") {
		if e.Data["model"] != "small" {
			t.Errorf("step %d names model %v, want the fallback", e.Step, e.Data["model"])
		}
	}
	if f.read(t, "notes.md") != "new\n" || res.Record.Fallback != "small" {
		t.Errorf("notes.md %q, record's fallback %q", f.read(t, "notes.md"), res.Record.Fallback)
	}
}

// TestTwoEmptyAnswersFallBack: the primary answers with nothing, twice
// for the same call; the fallback answers it, and the run finishes.
func TestTwoEmptyAnswersFallBack(t *testing.T) {
	f := setup(t, `{loop: true, turns: [{empty: true}]}`)
	fallbackSetup(t, f, writeThenDone)
	res := f.run(t)
	if res.Outcome != agent.Done {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	fb := eventsOf(f.events, "fallback")
	if len(fb) != 1 || fb[0].Data["reason"] != "empty" || num(fb[0].Data["wasted_input_tokens"]) == 0 {
		t.Fatalf("fallback events %v", fb)
	}
	if f.read(t, "notes.md") != "new\n" {
		t.Errorf("notes.md %q", f.read(t, "notes.md"))
	}
	// The empty answers are paid for: they are in the run's usage.
	var turnsIn int64
	for _, e := range eventsOf(f.events, "turn") {
		turnsIn += num(e.Data["input_tokens"])
	}
	if res.Usage.InputTokens <= turnsIn {
		t.Errorf("the run's input %d is not more than its turns' %d: the empty answers were not counted", res.Usage.InputTokens, turnsIn)
	}
}

// TestQuotaDoesNotFallBackUnlessAsked: a quota failure ends the run as
// api-failure without the fallback being asked, unless OnQuota.
func TestQuotaDoesNotFallBackUnlessAsked(t *testing.T) {
	const quota = `{loop: true, turns: [{status: 429, error: {type: insufficient_quota, code: insufficient_quota, message: "You exceeded your current quota"}}]}`
	for _, onQuota := range []bool{false, true} {
		t.Run(fmt.Sprintf("on quota %t", onQuota), func(t *testing.T) {
			f := setup(t, quota)
			fallbackSetup(t, f, writeThenDone)
			f.cfg.Fallback.OnQuota = onQuota
			res := f.run(t)
			want := agent.APIFailure
			if onQuota {
				want = agent.Done
			}
			if res.Outcome != want {
				t.Errorf("outcome %s (%s), want %s", res.Outcome, res.Reason, want)
			}
			if n := len(eventsOf(f.events, "fallback")); (n == 1) != onQuota {
				t.Errorf("%d fallback events", n)
			}
		})
	}
}

var _ = clock.NewFake
