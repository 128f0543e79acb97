package agent_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
)

// flakyTool fails transiently on its first `fails` calls, then succeeds,
// and counts every call it gets.
type flakyTool struct {
	name  string
	class tool.Class
	fails int32
	calls atomic.Int32
}

func (f *flakyTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: f.name, Description: "a test tool", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (f *flakyTool) Class() tool.Class { return f.class }

func (f *flakyTool) Run(context.Context, json.RawMessage) tool.Result {
	if n := f.calls.Add(1); n <= f.fails {
		return tool.Result{Content: f.name + ": the disk is busy", IsError: true, Transient: true}
	}
	return tool.OK(f.name + " ok")
}

// TestSideEffectClasses shows issue 4's rule in the event log: a read
// whose first call failed transiently is retried; a write whose call
// failed transiently is not repeated, and its failure goes back to the
// model.
func TestSideEffectClasses(t *testing.T) {
	f := setup(t, `
turns:
  - tool_calls:
      - {name: fetch, input: {}}
      - {name: store, input: {}}
  - text: done
`, nil)
	read := &flakyTool{name: "fetch", class: tool.Read, fails: 1}
	write := &flakyTool{name: "store", class: tool.Write, fails: 1}
	tools, err := tool.NewSet(read, write)
	if err != nil {
		t.Fatal(err)
	}
	f.cfg.Tools = tools
	res := agent.Run(context.Background(), f.cfg, "fetch and store")
	if res.Outcome != agent.Done {
		t.Fatalf("outcome = %s (%s), want done", res.Outcome, res.Reason)
	}

	t.Run("the read is retried once, with a retry event naming the tool", func(t *testing.T) {
		if got := read.calls.Load(); got != 2 {
			t.Errorf("fetch was called %d times, want 2", got)
		}
		want := []string{"[retry · tool=fetch attempt=1 wait=1000ms]"}
		if diff := cmp.Diff(want, f.lines("retry")); diff != "" {
			t.Errorf("retry lines (-want +got):\n%s", diff)
		}
	})

	t.Run("the write runs once and its transient failure goes back to the model", func(t *testing.T) {
		if got := write.calls.Load(); got != 1 {
			t.Errorf("store was called %d times, want 1: a write is never repeated blindly", got)
		}
		want := []string{
			"[tool · fetch {}]",
			"[tool · store error: store: the disk is busy]",
		}
		if diff := cmp.Diff(want, f.lines("tool")); diff != "" {
			t.Errorf("tool lines, one per call (-want +got):\n%s", diff)
		}
		reqs := f.model.requests()
		last := reqs[1].Messages[len(reqs[1].Messages)-1]
		var got []llm.Block
		for _, b := range last.Content {
			got = append(got, llm.Block{Type: b.Type, Text: b.Text, IsError: b.IsError})
		}
		wantBlocks := []llm.Block{
			{Type: llm.ToolResultBlock, Text: "fetch ok"},
			{Type: llm.ToolResultBlock, Text: "store: the disk is busy", IsError: true},
		}
		if diff := cmp.Diff(wantBlocks, got); diff != "" {
			t.Errorf("the results the model got (-want +got):\n%s", diff)
		}
	})
}
