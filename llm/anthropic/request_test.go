package anthropic

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
		c, rec := setup(t, stream, serve(wireReply{Blocks: []wireBlock{{Type: "text", Text: "done"}}, StopReason: "end_turn"}))
		req := &llm.Request{
			System: "You are careful.",
			Messages: []llm.Message{
				llm.UserText("Read a.txt and b.txt."),
				{Role: llm.Assistant, Content: []llm.Block{
					llm.Text("Reading."),
					llm.ToolUse("toolu_1", "read_file", json.RawMessage(`{"path":"a.txt"}`)),
					llm.ToolUse("toolu_2", "read_file", json.RawMessage(`{"path":"b.txt"}`)),
				}},
				{Role: llm.User, Content: []llm.Block{
					llm.ToolResult("toolu_1", "alpha", false),
					llm.ToolResult("toolu_2", "ENOENT: b.txt does not exist", true),
				}},
			},
			Tools: []llm.ToolSpec{{
				Name: "read_file", Description: "Read a file.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`),
			}},
		}
		if _, err := c.Generate(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		body, header := rec.Last(t)
		want := roundTrip(t, `{
			"model": "`+DefaultModel+`",
			"max_tokens": 4096,
			"system": [{"type":"text","text":"You are careful.","cache_control":{"type":"ephemeral"}}],
			"messages": [
				{"role":"user","content":[{"type":"text","text":"Read a.txt and b.txt.","cache_control":{"type":"ephemeral"}}]},
				{"role":"assistant","content":[
					{"type":"text","text":"Reading."},
					{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"a.txt"}},
					{"type":"tool_use","id":"toolu_2","name":"read_file","input":{"path":"b.txt"}}
				]},
				{"role":"user","content":[
					{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"alpha"}]},
					{"type":"tool_result","tool_use_id":"toolu_2","is_error":true,"content":[{"type":"text","text":"ENOENT: b.txt does not exist"}],
					 "cache_control":{"type":"ephemeral"}}
				]}
			],
			"tools": [{"name":"read_file","description":"Read a file.","input_schema":{
				"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}}]
		}`).(map[string]any)
		if stream {
			want["stream"] = true
		}
		if diff := cmp.Diff(want, any(body)); diff != "" {
			t.Errorf("request body (-want +got):\n%s", diff)
		}
		if got := header.Get("X-Api-Key"); got != testKey {
			t.Errorf("x-api-key header not sent")
		}
		if header.Get("Anthropic-Version") == "" {
			t.Errorf("anthropic-version header missing")
		}
		if header.Get("X-Test") != "yes" {
			t.Errorf("configured extra header missing")
		}
	})
}

func TestGenerateSendsOnlyWhatTheAPIAccepts(t *testing.T) {
	tests := []struct {
		name string
		req  llm.Request
		want string // the messages array the server must see
	}{
		{
			name: "a tool input cut off mid-JSON goes back as an empty object",
			req: llm.Request{NoCache: true, Messages: []llm.Message{
				llm.UserText("write"),
				{Role: llm.Assistant, Content: []llm.Block{llm.ToolUse("toolu_1", "write_file", json.RawMessage(`{"path":"a`))}},
				{Role: llm.User, Content: []llm.Block{llm.ToolResult("toolu_1", "input was cut off", true)}},
			}},
			want: `[
				{"role":"user","content":[{"type":"text","text":"write"}]},
				{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"write_file","input":{}}]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"input was cut off"}]}]}
			]`,
		},
		{
			name: "empty text blocks and empty messages are left out",
			req: llm.Request{NoCache: true, Messages: []llm.Message{
				{Role: llm.User, Content: []llm.Block{llm.Text(""), llm.Text("hi")}},
				{Role: llm.Assistant},
				{Role: llm.User, Content: []llm.Block{llm.ToolResult("toolu_9", "", false)}},
			}},
			want: `[
				{"role":"user","content":[{"type":"text","text":"hi"}]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9"}]}
			]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rec := setup(t, false, serve(wireReply{Blocks: []wireBlock{{Type: "text", Text: "ok"}}, StopReason: "end_turn"}))
			if _, err := c.Generate(context.Background(), &tt.req); err != nil {
				t.Fatal(err)
			}
			body, _ := rec.Last(t)
			if diff := cmp.Diff(roundTrip(t, tt.want), body["messages"]); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGenerateUsesTheRequestsModelAndCap(t *testing.T) {
	c, rec := setup(t, false, serve(wireReply{Blocks: []wireBlock{{Type: "text", Text: "ok"}}, StopReason: "end_turn"}))
	req := &llm.Request{Model: "claude-other", MaxTokens: 99, Messages: []llm.Message{llm.UserText("hi")}}
	if _, err := c.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body, _ := rec.Last(t)
	got := map[string]any{"model": body["model"], "max_tokens": body["max_tokens"]}
	want := map[string]any{"model": "claude-other", "max_tokens": float64(99)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestGenerateRefusesAToolSchemaThatIsNotJSON(t *testing.T) {
	c, rec := setup(t, false, serve(wireReply{StopReason: "end_turn"}))
	_, err := c.Generate(context.Background(), &llm.Request{
		Messages: []llm.Message{llm.UserText("hi")},
		Tools:    []llm.ToolSpec{{Name: "broken", InputSchema: json.RawMessage(`{not json`)}},
	})
	if got := llm.ClassOf(err); got != llm.BadRequest {
		t.Errorf("class = %q, want bad-request (err %v)", got, err)
	}
	if rec.Count() != 0 {
		t.Errorf("a request the API could never accept was sent anyway")
	}
}

func TestNewNeedsAKeyOrABaseURL(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("ANTHROPIC_BASE_URL", "")
	if _, err := New(Config{}); err != ErrNoAPIKey {
		t.Errorf("New without key = %v, want ErrNoAPIKey", err)
	}
	if _, err := New(Config{BaseURL: "http://127.0.0.1:1"}); err != nil {
		t.Errorf("New with only a base URL = %v, want a client", err)
	}
}

func TestNewReadsTheKeyFromTheEnvironment(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", testKey)
	_, rec := setup(t, false, serve(wireReply{Blocks: []wireBlock{{Type: "text", Text: "ok"}}, StopReason: "end_turn"}))
	c2, err := New(Config{BaseURL: rec.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}}); err != nil {
		t.Fatal(err)
	}
	if _, h := rec.Last(t); h.Get("X-Api-Key") != testKey {
		t.Errorf("the key from ANTHROPIC_API_KEY was not sent")
	}
}

func TestALongCapNeedsStreaming(t *testing.T) {
	c, rec := setup(t, false, serve(wireReply{StopReason: "end_turn"}))
	_, err := c.Generate(context.Background(), &llm.Request{MaxTokens: 64000, Messages: []llm.Message{llm.UserText("hi")}})
	if got := llm.ClassOf(err); got != llm.BadRequest {
		t.Errorf("class = %q, want bad-request (err %v)", got, err)
	}
	if rec.Count() != 0 {
		t.Errorf("a call the SDK refuses was sent anyway")
	}
}

// TestMarkLastIsTheSDKsMarkedEncoding holds the marked form made from a
// message's plain encoding (markLast, the client's Derive) to the JSON
// the SDK writes for the marked message, over every kind of block.
func TestMarkLastIsTheSDKsMarkedEncoding(t *testing.T) {
	for name, m := range map[string]llm.Message{
		"text":             {Role: llm.User, Content: []llm.Block{llm.Text("Fix the {bug} in \"a.go\"]}")}},
		"texts":            {Role: llm.User, Content: []llm.Block{llm.Text("one"), llm.Text("two")}},
		"tool use":         {Role: llm.Assistant, Content: []llm.Block{llm.Text("Reading."), llm.ToolUse("toolu_1", "read_file", json.RawMessage(`{"path":"a.go","n":{"x":[1]}}`))}},
		"cut-off input":    {Role: llm.Assistant, Content: []llm.Block{llm.ToolUse("toolu_1", "write_file", json.RawMessage(`{"path":"a`))}},
		"tool result":      {Role: llm.User, Content: []llm.Block{llm.ToolResult("toolu_1", "package a\n}]", false)}},
		"failed result":    {Role: llm.User, Content: []llm.Block{llm.ToolResult("toolu_1", "ENOENT", true)}},
		"empty result":     {Role: llm.User, Content: []llm.Block{llm.ToolResult("toolu_1", "", false)}},
		"results and text": {Role: llm.User, Content: []llm.Block{llm.ToolResult("a", "1", false), llm.ToolResult("b", "2", true), llm.Text("Go on.")}},
	} {
		t.Run(name, func(t *testing.T) {
			plainEnc, err := messageParam(m, false).MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			got, ok := markLast(plainEnc, &m, marked)
			if !ok {
				t.Fatalf("markLast refused %s", plainEnc)
			}
			want, err := messageParam(m, true).MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%s: %v", got, err)
			}
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("marked encoding differs from the SDK's (-sdk +markLast):\n%s", diff)
			}
		})
	}
}

// TestMarkLastRefusesWhatItDoesNotKnow: an encoding that does not end as
// the SDK ends a message is left to the SDK.
func TestMarkLastRefusesWhatItDoesNotKnow(t *testing.T) {
	user := &llm.Message{Role: llm.User}
	for _, enc := range []string{
		`{"role":"user","content":[{"type":"text","text":"a"}]}`,
		`{"content":[],"role":"user"}`,
		`{"content":[{}],"role":"user"}`,
		`{"content":[{"type":"text","text":"a"}],"role":"assistant"}`,
	} {
		if got, ok := markLast([]byte(enc), user, marked); ok {
			t.Errorf("markLast(%s) = %s, want a refusal", enc, got)
		}
	}
	if _, ok := markLast([]byte(`{"content":[{"type":"text","text":"a"}],"role":"user"}`), user, plain); ok {
		t.Error("markLast made the plain form")
	}
}
