package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/nightshift-dev/nightshift/llm"
)

var ignoreHeader = cmpopts.IgnoreFields(llm.Response{}, "Header")

var someUsage = map[string]int{"prompt_tokens": 12, "completion_tokens": 4, "total_tokens": 16}

func TestGenerateReadsReplies(t *testing.T) {
	tests := []struct {
		name  string
		reply wireReply
		want  *llm.Response
	}{
		{
			name:  "a text reply becomes one text block ending the turn",
			reply: wireReply{Text: "Hello there.", FinishReason: "stop", Usage: someUsage},
			want: &llm.Response{Model: "gpt-test", StopReason: llm.EndTurn,
				Content: []llm.Block{llm.Text("Hello there.")}, Usage: llm.Usage{InputTokens: 12, OutputTokens: 4}},
		},
		{
			name: "several tool calls in one reply keep their order",
			reply: wireReply{Text: "Reading both.", Calls: []wireCall{
				{ID: "call_1", Name: "read_file", Args: `{"path":"a.txt"}`},
				{ID: "call_2", Name: "read_file", Args: `{"path":"b.txt"}`},
				{ID: "call_3", Name: "list_dir", Args: `{"path":"."}`},
			}, FinishReason: "tool_calls", Usage: someUsage},
			want: &llm.Response{Model: "gpt-test", StopReason: llm.ToolUseStop, Usage: llm.Usage{InputTokens: 12, OutputTokens: 4},
				Content: []llm.Block{
					llm.Text("Reading both."),
					llm.ToolUse("call_1", "read_file", json.RawMessage(`{"path":"a.txt"}`)),
					llm.ToolUse("call_2", "read_file", json.RawMessage(`{"path":"b.txt"}`)),
					llm.ToolUse("call_3", "list_dir", json.RawMessage(`{"path":"."}`)),
				}},
		},
		{
			name:  "a reply without usage reads as zero usage",
			reply: wireReply{Text: "ok", FinishReason: "stop"},
			want:  &llm.Response{Model: "gpt-test", StopReason: llm.EndTurn, Content: []llm.Block{llm.Text("ok")}},
		},
		{
			name:  "a tool call cut off by the length limit keeps its partial arguments",
			reply: wireReply{Calls: []wireCall{{ID: "call_1", Name: "write_file", Args: `{"path":"notes.txt","content":"the first ha`}}, FinishReason: "length"},
			want: &llm.Response{Model: "gpt-test", StopReason: llm.MaxTokens, Content: []llm.Block{
				llm.ToolUse("call_1", "write_file", json.RawMessage(`{"path":"notes.txt","content":"the first ha`)),
			}},
		},
		{
			name:  "a tool call without arguments has an empty object as input",
			reply: wireReply{Calls: []wireCall{{ID: "call_1", Name: "list_dir", Args: ""}}, FinishReason: "tool_calls"},
			want: &llm.Response{Model: "gpt-test", StopReason: llm.ToolUseStop, Content: []llm.Block{
				llm.ToolUse("call_1", "list_dir", json.RawMessage(`{}`)),
			}},
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

func TestGenerateMapsFinishReasons(t *testing.T) {
	tests := []struct {
		name  string
		reply wireReply
		want  llm.StopReason
	}{
		{"stop ends the turn", wireReply{Text: "x", FinishReason: "stop"}, llm.EndTurn},
		{"tool_calls asks for tools", wireReply{Calls: []wireCall{{ID: "c", Name: "t", Args: "{}"}}, FinishReason: "tool_calls"}, llm.ToolUseStop},
		{"stop with tool calls (as Ollama sends it) asks for tools", wireReply{Calls: []wireCall{{ID: "c", Name: "t", Args: "{}"}}, FinishReason: "stop"}, llm.ToolUseStop},
		{"length is max_tokens", wireReply{Text: "x", FinishReason: "length"}, llm.MaxTokens},
		{"content_filter is a refusal", wireReply{Text: "x", FinishReason: "content_filter"}, llm.Refusal},
		{"an unknown reason is unknown", wireReply{Text: "x", FinishReason: "eos_token"}, llm.Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			modes(t, func(t *testing.T, stream bool) {
				c, _ := setup(t, stream, serve(tt.reply))
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

func TestGenerateReadsARefusal(t *testing.T) {
	c, _ := setup(t, false, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"c","object":"chat.completion","created":1,"model":"gpt-test","choices":[{"index":0,"finish_reason":"stop",
			"message":{"role":"assistant","content":null,"refusal":"I can't help with that."}}]}`))
	})
	got, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	want := &llm.Response{Model: "gpt-test", StopReason: llm.Refusal, Content: []llm.Block{llm.Text("I can't help with that.")}}
	if diff := cmp.Diff(want, got, ignoreHeader); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}

func TestGenerateReadsArgumentsSentAsAnObject(t *testing.T) {
	// Some compatible servers put the arguments object itself where
	// OpenAI puts a string of JSON.
	c, _ := setup(t, false, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"c","object":"chat.completion","created":1,"model":"llama","choices":[{"index":0,"finish_reason":"tool_calls",
			"message":{"role":"assistant","content":"","tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":{"path":"a.txt"}}}]}}]}`))
	})
	got, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Block{llm.ToolUse("call_1", "read_file", json.RawMessage(`{"path":"a.txt"}`))}
	if diff := cmp.Diff(want, got.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
}

func TestStreamSeparatesWholeCallsSentAtOneIndex(t *testing.T) {
	// Some compatible servers send each complete call in one chunk, all
	// with index 0; their ids tell them apart.
	c, _ := setup(t, true, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, chunk := range []string{
			`{"id":"c","object":"chat.completion.chunk","created":1,"model":"llama","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.txt\"}"}}]},"finish_reason":null}]}`,
			`{"id":"c","object":"chat.completion.chunk","created":1,"model":"llama","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_2","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b.txt\"}"}}]},"finish_reason":null}]}`,
			`{"id":"c","object":"chat.completion.chunk","created":1,"model":"llama","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			`[DONE]`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", chunk)
		}
	})
	got, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Block{
		llm.ToolUse("call_1", "read_file", json.RawMessage(`{"path":"a.txt"}`)),
		llm.ToolUse("call_2", "read_file", json.RawMessage(`{"path":"b.txt"}`)),
	}
	if diff := cmp.Diff(want, got.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
}

func TestACompatibleServerThatOmitsToolCallIDsGetsUniqueOnes(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		c, rec := setup(t, stream, serve(wireReply{Calls: []wireCall{
			{Name: "read_file", Args: `{"path":"a.txt"}`},
			{Name: "read_file", Args: `{"path":"b.txt"}`},
		}, FinishReason: "tool_calls"}))
		req := &llm.Request{Messages: []llm.Message{llm.UserText("read both")}}
		got, err := c.Generate(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		uses := got.Message().ToolUses()
		if len(uses) != 2 {
			t.Fatalf("tool uses = %+v", uses)
		}
		a, b := uses[0].ID, uses[1].ID
		if !strings.HasPrefix(a, "call_") || !strings.HasPrefix(b, "call_") || a == b {
			t.Fatalf("ids = %q, %q: want two different call_ ids", a, b)
		}
		// The ids go back with the calls and pair the results with them.
		req.Messages = append(req.Messages, got.Message(), llm.Message{Role: llm.User, Content: []llm.Block{
			llm.ToolResult(a, "alpha", false), llm.ToolResult(b, "beta", false),
		}})
		if _, err := c.Generate(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		body, _ := rec.Last(t)
		msgs := body["messages"].([]any)
		sentCalls := msgs[1].(map[string]any)["tool_calls"].([]any)
		var sent []string
		for _, tc := range sentCalls {
			sent = append(sent, tc.(map[string]any)["id"].(string))
		}
		for _, m := range msgs[2:] {
			sent = append(sent, m.(map[string]any)["tool_call_id"].(string))
		}
		if diff := cmp.Diff([]string{a, b, a, b}, sent); diff != "" {
			t.Errorf("ids sent back (-want +got):\n%s", diff)
		}
	})
}
