package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/llm"
)

// breakpoints lists where a body carries cache_control: "system",
// "tool N", "message I" (the message's last block; any other block is an
// error).
func breakpoints(t *testing.T, body map[string]any) []string {
	t.Helper()
	var out []string
	has := func(v any) bool { _, ok := v.(map[string]any)["cache_control"]; return ok }
	if sys, ok := body["system"].([]any); ok {
		for _, b := range sys {
			if has(b) {
				out = append(out, "system")
			}
		}
	}
	if tools, ok := body["tools"].([]any); ok {
		for i, tl := range tools {
			if has(tl) {
				out = append(out, fmt.Sprintf("tool %d", i))
			}
		}
	}
	for i, m := range body["messages"].([]any) {
		blocks := m.(map[string]any)["content"].([]any)
		for j, b := range blocks {
			if has(b) {
				if j != len(blocks)-1 {
					t.Errorf("message %d: a breakpoint on block %d of %d, not the last", i, j, len(blocks))
				}
				out = append(out, fmt.Sprintf("message %d", i))
			}
		}
	}
	return out
}

var readFile = llm.ToolSpec{Name: "read_file", Description: "Read a file.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}

// parallelStep is an assistant turn of n tool calls and the user turn of
// their n results: 2n content blocks.
func parallelStep(step, n int) []llm.Message {
	a := llm.Message{Role: llm.Assistant}
	u := llm.Message{Role: llm.User}
	for i := range n {
		id := fmt.Sprintf("toolu_%d_%d", step, i)
		a.Content = append(a.Content, llm.ToolUse(id, "read_file", json.RawMessage(`{"path":"a.txt"}`)))
		u.Content = append(u.Content, llm.ToolResult(id, "alpha", false))
	}
	return []llm.Message{a, u}
}

func TestCacheBreakpointsGoOnTheHeadAndTheRollingTurns(t *testing.T) {
	conversation := append([]llm.Message{llm.UserText("Read every file.")}, parallelStep(1, 12)...)
	conversation = append(conversation, parallelStep(2, 12)...)
	tests := []struct {
		name string
		req  llm.Request
		want []string
	}{{
		name: "a first call marks the system prompt only",
		req:  llm.Request{System: "s", Tools: []llm.ToolSpec{readFile}, Messages: []llm.Message{llm.UserText("go")}},
		want: []string{"system"},
	}, {
		name: "without a system prompt the last tool carries the head's breakpoint",
		req:  llm.Request{Tools: []llm.ToolSpec{readFile, {Name: "list_dir"}}, Messages: []llm.Message{llm.UserText("go")}},
		want: []string{"tool 1"},
	}, {
		name: "a conversation marks where the previous call ended and the latest turn, however many blocks lie between",
		req:  llm.Request{System: "s", Tools: []llm.ToolSpec{readFile}, Messages: conversation},
		want: []string{"system", "message 2", "message 4"},
	}, {
		name: "the rolling breakpoints count the messages the API is sent, not the empty ones left out",
		req: llm.Request{System: "s", Messages: []llm.Message{
			llm.UserText("go"), {Role: llm.User, Content: []llm.Block{llm.Text("")}},
			{Role: llm.Assistant, Content: []llm.Block{llm.Text("ok")}}, llm.UserText("more"),
		}},
		want: []string{"system", "message 0", "message 2"},
	}, {
		name: "NoCache sends no breakpoint at all",
		req:  llm.Request{System: "s", Tools: []llm.ToolSpec{readFile}, Messages: conversation, NoCache: true},
		want: nil,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rec := setup(t, false, serve(wireReply{Blocks: []wireBlock{{Type: "text", Text: "ok"}}, StopReason: "end_turn"}))
			if _, err := c.Generate(context.Background(), &tt.req); err != nil {
				t.Fatal(err)
			}
			body, _ := rec.Last(t)
			got := breakpoints(t, body)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("breakpoints (-want +got):\n%s", diff)
			}
			if len(got) > 4 {
				t.Errorf("%d breakpoints: the API refuses more than 4", len(got))
			}
		})
	}
}

// TestEachMessageIsEncodedOnce: a conversation sent call after call gets
// one new encoding per new message (and per change of breakpoint), not a
// new encoding of the whole history, and every call's body still says
// exactly what the conversation holds.
func TestEachMessageIsEncodedOnce(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		c, rec := setup(t, stream, serve(wireReply{Blocks: []wireBlock{{Type: "text", Text: "ok"}}, StopReason: "end_turn"}))
		msgs := []llm.Message{llm.UserText("Read every file.")}
		var sizes []int
		for step := range 6 {
			req := &llm.Request{System: "s", Tools: []llm.ToolSpec{readFile}, Messages: msgs}
			if _, err := c.Generate(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			body, _ := rec.Last(t)
			if n := len(body["messages"].([]any)); n != len(msgs) {
				t.Fatalf("step %d: %d messages sent, want %d", step, n, len(msgs))
			}
			sizes = append(sizes, c.enc.Len())
			// Fresh values each step, as an agent builds them.
			msgs = append(msgs, parallelStep(step, 2)...)
		}
		// Step 0: system, tools, the task (plain). Each later step adds
		// its two new messages, the latest one marked, and the one the
		// previous call ended with, now marked as where it ended (its
		// plain form comes a step later): at most four new encodings.
		for i := 1; i < len(sizes); i++ {
			if d := sizes[i] - sizes[i-1]; d > 4 {
				t.Errorf("step %d: %d new encodings, want at most 4 (the history is not encoded again)", i, d)
			}
		}
	})
}

// TestAToolWithoutParametersIsSentWithAnInputSchema: the API requires
// input_schema on every tool; the SDK leaves out an empty one, so a tool
// whose schema named no properties (or that had no schema) went without
// and the API refused the call.
func TestAToolWithoutParametersIsSentWithAnInputSchema(t *testing.T) {
	c, rec := setup(t, false, serve(wireReply{Blocks: []wireBlock{{Type: "text", Text: "ok"}}, StopReason: "end_turn"}))
	req := &llm.Request{Messages: []llm.Message{llm.UserText("go")}, Tools: []llm.ToolSpec{
		{Name: "now", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "ping"},
	}}
	if _, err := c.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body, _ := rec.Last(t)
	for i, tl := range body["tools"].([]any) {
		got := tl.(map[string]any)["input_schema"]
		want := map[string]any{"type": "object", "properties": map[string]any{}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("tool %d's input_schema (-want +got):\n%s", i, diff)
		}
	}
}
