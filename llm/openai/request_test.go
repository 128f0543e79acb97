package openai

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/llm"
)

// roundTrip decodes v's JSON into generic values, the way the server sees it.
func roundTrip(t *testing.T, v string) any {
	t.Helper()
	var out any
	if err := json.Unmarshal([]byte(v), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGenerateSendsTheConversation(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		c, rec := setup(t, stream, serve(wireReply{Text: "done", FinishReason: "stop"}))
		req := &llm.Request{
			System: "You are careful.",
			Messages: []llm.Message{
				llm.UserText("Read a.txt and b.txt."),
				{Role: llm.Assistant, Content: []llm.Block{
					llm.Text("Reading."),
					llm.ToolUse("call_1", "read_file", json.RawMessage(`{"path":"a.txt"}`)),
					llm.ToolUse("call_2", "read_file", json.RawMessage(`{"path":"b.txt"}`)),
				}},
				{Role: llm.User, Content: []llm.Block{
					llm.ToolResult("call_1", "alpha", false),
					llm.ToolResult("call_2", "ENOENT: b.txt does not exist", true),
					llm.Text("Now summarise."),
				}},
			},
			Tools: []llm.ToolSpec{{
				Name: "read_file", Description: "Read a file.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
			}},
		}
		if _, err := c.Generate(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		body, header := rec.last(t)
		want := roundTrip(t, `{
			"model": "`+DefaultModel+`",
			"max_tokens": 4096,
			"messages": [
				{"role":"system","content":"You are careful."},
				{"role":"user","content":"Read a.txt and b.txt."},
				{"role":"assistant","content":"Reading.","tool_calls":[
					{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.txt\"}"}},
					{"id":"call_2","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b.txt\"}"}}
				]},
				{"role":"tool","tool_call_id":"call_1","content":"alpha"},
				{"role":"tool","tool_call_id":"call_2","content":"ERROR: ENOENT: b.txt does not exist"},
				{"role":"user","content":"Now summarise."}
			],
			"tools": [{"type":"function","function":{"name":"read_file","description":"Read a file.","parameters":{
				"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]
		}`).(map[string]any)
		if stream {
			want["stream"] = true
			want["stream_options"] = map[string]any{"include_usage": true}
		}
		if diff := cmp.Diff(want, any(body)); diff != "" {
			t.Errorf("request body (-want +got):\n%s", diff)
		}
		if got := header.Get("Authorization"); got != "Bearer "+testKey {
			t.Errorf("the key was not sent as a bearer token")
		}
		if header.Get("X-Test") != "yes" {
			t.Errorf("configured extra header missing")
		}
	})
}

func TestGenerateSendsTheCapAsConfigured(t *testing.T) {
	tests := []struct {
		name                string
		maxCompletionTokens bool
		want                map[string]any
	}{
		{"by default the cap goes as max_tokens, which compatible servers understand", false,
			map[string]any{"max_tokens": float64(99), "max_completion_tokens": nil}},
		{"with MaxCompletionTokens it goes as max_completion_tokens", true,
			map[string]any{"max_tokens": nil, "max_completion_tokens": float64(99)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := server(t, serve(wireReply{Text: "ok", FinishReason: "stop"}))
			c, err := New(Config{APIKey: testKey, BaseURL: rec.url, MaxCompletionTokens: tt.maxCompletionTokens})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Generate(context.Background(), &llm.Request{Model: "o-test", MaxTokens: 99, Messages: []llm.Message{llm.UserText("hi")}}); err != nil {
				t.Fatal(err)
			}
			body, _ := rec.last(t)
			got := map[string]any{"max_tokens": body["max_tokens"], "max_completion_tokens": body["max_completion_tokens"]}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if body["model"] != "o-test" {
				t.Errorf("model = %v, want the request's o-test", body["model"])
			}
		})
	}
}

func TestGenerateSendsACutOffToolCallBackAsWritten(t *testing.T) {
	c, rec := setup(t, false, serve(wireReply{Text: "ok", FinishReason: "stop"}))
	req := &llm.Request{Messages: []llm.Message{
		llm.UserText("write"),
		{Role: llm.Assistant, Content: []llm.Block{llm.ToolUse("call_1", "write_file", json.RawMessage(`{"path":"a`))}},
		{Role: llm.User, Content: []llm.Block{llm.ToolResult("call_1", "input was cut off", true)}},
	}}
	if _, err := c.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body, _ := rec.last(t)
	want := roundTrip(t, `[
		{"role":"user","content":"write"},
		{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"write_file","arguments":"{\"path\":\"a"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"ERROR: input was cut off"}
	]`)
	if diff := cmp.Diff(want, body["messages"]); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestGenerateRefusesAToolSchemaThatIsNotJSON(t *testing.T) {
	c, rec := setup(t, false, serve(wireReply{FinishReason: "stop"}))
	_, err := c.Generate(context.Background(), &llm.Request{
		Messages: []llm.Message{llm.UserText("hi")},
		Tools:    []llm.ToolSpec{{Name: "broken", InputSchema: json.RawMessage(`{not json`)}},
	})
	if got := llm.ClassOf(err); got != llm.BadRequest {
		t.Errorf("class = %q, want bad-request (err %v)", got, err)
	}
	if rec.count() != 0 {
		t.Errorf("a request the API could never accept was sent anyway")
	}
}

func TestNewNeedsAKeyOrABaseURL(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	if _, err := New(Config{}); err != ErrNoAPIKey {
		t.Errorf("New without key = %v, want ErrNoAPIKey", err)
	}
}

func TestALocalServerNeedsNoKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	rec := server(t, serve(wireReply{Text: "ok", FinishReason: "stop"}))
	c, err := New(Config{BaseURL: rec.url, Model: "llama3"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}}); err != nil {
		t.Fatal(err)
	}
	if _, h := rec.last(t); h.Get("Authorization") != "Bearer "+placeholderKey {
		t.Errorf("authorization = %q, want the placeholder", h.Get("Authorization"))
	}
}
