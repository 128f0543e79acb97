package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
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
		body, header := rec.Last(t)
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

// toServer is a transport that sends every request to the test server
// whatever host it was meant for, so a client configured for OpenAI's own
// endpoint can be tested without the network.
type toServer string

func (u toServer) RoundTrip(r *http.Request) (*http.Response, error) {
	target, err := url.Parse(string(u))
	if err != nil {
		return nil, err
	}
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = target.Scheme, target.Host, target.Host
	return http.DefaultTransport.RoundTrip(r)
}

func TestOpenAIsOwnEndpointGetsMaxCompletionTokens(t *testing.T) {
	// The SDK reads OPENAI_BASE_URL itself, even when empty: unset it
	// (t.Setenv first, to have it restored).
	t.Setenv("OPENAI_BASE_URL", "")
	os.Unsetenv("OPENAI_BASE_URL")
	sent := map[string]any{"max_tokens": nil, "max_completion_tokens": float64(99)}
	legacy := map[string]any{"max_tokens": float64(99), "max_completion_tokens": nil}
	tests := []struct {
		name    string
		baseURL string // "server" is the test server's own address
		field   string
		want    map[string]any
	}{
		{"OpenAI's endpoint by default (no base URL) gets max_completion_tokens", "", "", sent},
		{"api.openai.com named as the base URL gets max_completion_tokens", "https://api.openai.com/v1", "", sent},
		{"another server gets max_tokens, which every compatible server understands", "server", "", legacy},
		{"max_tokens can be chosen for OpenAI's endpoint", "", FieldMaxTokens, legacy},
		{"max_completion_tokens can be chosen for another server", "server", FieldMaxCompletionTokens, sent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := server(t, serve(wireReply{Text: "ok", FinishReason: "stop"}))
			base := tt.baseURL
			if base == "server" {
				base = rec.URL
			}
			c, err := New(Config{APIKey: testKey, BaseURL: base, MaxTokensField: tt.field,
				HTTPClient: &http.Client{Transport: toServer(rec.URL)}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Generate(context.Background(), &llm.Request{Model: "o-test", MaxTokens: 99, Messages: []llm.Message{llm.UserText("hi")}}); err != nil {
				t.Fatal(err)
			}
			body, _ := rec.Last(t)
			got := map[string]any{"max_tokens": body["max_tokens"], "max_completion_tokens": body["max_completion_tokens"]}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if body["model"] != "o-test" {
				t.Errorf("model = %v, want the request's o-test", body["model"])
			}
		})
	}
	t.Run("any other field name is refused", func(t *testing.T) {
		if _, err := New(Config{APIKey: testKey, MaxTokensField: "max_output_tokens"}); err == nil {
			t.Error("New accepted max_output_tokens")
		}
	})
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
	body, _ := rec.Last(t)
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
	if rec.Count() != 0 {
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
	c, err := New(Config{BaseURL: rec.URL, Model: "llama3"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}}); err != nil {
		t.Fatal(err)
	}
	if _, h := rec.Last(t); h.Get("Authorization") != "Bearer "+placeholderKey {
		t.Errorf("authorization = %q, want the placeholder", h.Get("Authorization"))
	}
}
