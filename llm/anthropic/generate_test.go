package anthropic

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/nightshift-dev/nightshift/llm"
)

var ignoreHeader = cmpopts.IgnoreFields(llm.Response{}, "Header")

func TestGenerateReadsReplies(t *testing.T) {
	tests := []struct {
		name  string
		reply wireReply
		want  *llm.Response
	}{
		{
			name:  "a text reply becomes one text block ending the turn",
			reply: wireReply{Blocks: []wireBlock{{Type: "text", Text: "Hello there."}}, StopReason: "end_turn"},
			want: &llm.Response{Model: "claude-test", StopReason: llm.EndTurn,
				Content: []llm.Block{llm.Text("Hello there.")}, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}},
		},
		{
			name: "several tool calls in one reply keep their order",
			reply: wireReply{Blocks: []wireBlock{
				{Type: "text", Text: "Reading both."},
				{Type: "tool_use", ID: "toolu_1", Name: "read_file", Input: `{"path":"a.txt"}`},
				{Type: "tool_use", ID: "toolu_2", Name: "read_file", Input: `{"path":"b.txt"}`},
				{Type: "tool_use", ID: "toolu_3", Name: "list_dir", Input: `{"path":"."}`},
			}, StopReason: "tool_use"},
			want: &llm.Response{Model: "claude-test", StopReason: llm.ToolUseStop, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5},
				Content: []llm.Block{
					llm.Text("Reading both."),
					llm.ToolUse("toolu_1", "read_file", json.RawMessage(`{"path":"a.txt"}`)),
					llm.ToolUse("toolu_2", "read_file", json.RawMessage(`{"path":"b.txt"}`)),
					llm.ToolUse("toolu_3", "list_dir", json.RawMessage(`{"path":"."}`)),
				}},
		},
		{
			name: "cached prompt tokens count as input",
			reply: wireReply{Blocks: []wireBlock{{Type: "text", Text: "ok"}}, StopReason: "end_turn",
				Usage: map[string]int{"input_tokens": 7, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 20, "output_tokens": 3}},
			want: &llm.Response{Model: "claude-test", StopReason: llm.EndTurn,
				Content: []llm.Block{llm.Text("ok")}, Usage: llm.Usage{InputTokens: 127, OutputTokens: 3, CacheWriteTokens: 20, CacheReadTokens: 100}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			modes(t, func(t *testing.T, stream bool) {
				c, _ := setup(t, stream, serve(tt.reply))
				got, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got, ignoreHeader); diff != "" {
					t.Errorf("response (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestGenerateMapsStopReasons(t *testing.T) {
	tests := []struct {
		wire string
		want llm.StopReason
	}{
		{"end_turn", llm.EndTurn},
		{"tool_use", llm.ToolUseStop},
		{"max_tokens", llm.MaxTokens},
		{"model_context_window_exceeded", llm.MaxTokens},
		{"stop_sequence", llm.StopSequence},
		{"pause_turn", llm.PauseTurn},
		{"refusal", llm.Refusal},
		{"something_new", llm.Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.wire+" maps to "+string(tt.want), func(t *testing.T) {
			modes(t, func(t *testing.T, stream bool) {
				c, _ := setup(t, stream, serve(wireReply{Blocks: []wireBlock{{Type: "text", Text: "x"}}, StopReason: tt.wire}))
				got, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
				if err != nil {
					t.Fatal(err)
				}
				if got.StopReason != tt.want {
					t.Errorf("stop reason = %q, want %q", got.StopReason, tt.want)
				}
			})
		})
	}
}

func TestStreamKeepsToolInputCutByMaxTokens(t *testing.T) {
	cut := `{"path":"notes.txt","content":"the first half of a lo`
	c, _ := setup(t, true, serve(wireReply{Blocks: []wireBlock{
		{Type: "tool_use", ID: "toolu_1", Name: "write_file", Input: cut},
	}, StopReason: "max_tokens"}))
	got, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("write")}})
	if err != nil {
		t.Fatalf("a cut-off tool call must not fail the call: %v", err)
	}
	want := []llm.Block{llm.ToolUse("toolu_1", "write_file", json.RawMessage(cut))}
	if diff := cmp.Diff(want, got.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if got.StopReason != llm.MaxTokens {
		t.Errorf("stop reason = %q, want max_tokens", got.StopReason)
	}
}

func TestStreamToolCallWithoutArgumentsHasEmptyObjectInput(t *testing.T) {
	c, _ := setup(t, true, serve(wireReply{Blocks: []wireBlock{
		{Type: "tool_use", ID: "toolu_1", Name: "list_dir", Input: ""},
	}, StopReason: "tool_use"}))
	got, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("ls")}})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Block{llm.ToolUse("toolu_1", "list_dir", json.RawMessage(`{}`))}
	if diff := cmp.Diff(want, got.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
}
