package scripted_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// openaiClient talks to url+"/v1", as a client configured with an
// OpenAI-compatible base URL does.
func openaiClient(url string) openai.Client {
	return openai.NewClient(option.WithBaseURL(url+"/v1"), option.WithAPIKey("test"), option.WithMaxRetries(0))
}

func openaiParams(msgs ...openai.ChatCompletionMessageParamUnion) openai.ChatCompletionNewParams {
	if len(msgs) == 0 {
		msgs = []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Summarise notes.txt")}
	}
	return openai.ChatCompletionNewParams{Model: "gpt-test", Messages: msgs}
}

// callOpenAI makes one call in the given mode; a streaming call asks for
// the usage chunk and accumulates the chunks as a streaming client does.
func callOpenAI(ctx context.Context, c openai.Client, p openai.ChatCompletionNewParams, stream bool) (*openai.ChatCompletion, int, error) {
	if !stream {
		r, err := c.Chat.Completions.New(ctx, p)
		return r, 0, err
	}
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	s := c.Chat.Completions.NewStreaming(ctx, p)
	defer s.Close()
	var acc openai.ChatCompletionAccumulator
	chunks := 0
	for s.Next() {
		chunks++
		acc.AddChunk(s.Current())
	}
	if err := s.Err(); err != nil {
		return nil, chunks, err
	}
	return &acc.ChatCompletion, chunks, nil
}

func openaiView(r *openai.ChatCompletion) reply {
	v := reply{In: r.Usage.PromptTokens, Out: r.Usage.CompletionTokens}
	if len(r.Choices) == 0 {
		return v
	}
	ch := r.Choices[0]
	v.Stop = ch.FinishReason
	if ch.Message.Content != "" {
		v.Blocks = append(v.Blocks, block{Type: "text", Text: ch.Message.Content})
	}
	if ch.Message.Refusal != "" {
		v.Blocks = append(v.Blocks, block{Type: "refusal", Text: ch.Message.Refusal})
	}
	for _, tc := range ch.Message.ToolCalls {
		v.Blocks = append(v.Blocks, block{Type: "tool_use", ID: tc.ID, Name: tc.Function.Name, Input: tc.Function.Arguments})
	}
	return v
}

func TestOpenAIReplies(t *testing.T) {
	tests := []struct {
		name, turn string
		want       reply
	}{
		{
			"a text reply stops",
			`{text: "All three notes are about the garden, and the longest is the second one.", usage: {input: 40, output: 17}}`,
			reply{Blocks: []block{{Type: "text", Text: "All three notes are about the garden, and the longest is the second one."}}, Stop: "stop", In: 40, Out: 17},
		},
		{
			"several tool calls finish with tool_calls",
			`{text: "Reading both.", usage: {input: 40, output: 30}, tool_calls: [{name: read_file, input: {path: notes/a.txt}}, {id: call_x, name: list_dir, input: {path: "."}}]}`,
			reply{Blocks: []block{
				{Type: "text", Text: "Reading both."},
				{Type: "tool_use", ID: "call_…", Name: "read_file", Input: `{"path":"notes/a.txt"}`},
				{Type: "tool_use", ID: "call_x", Name: "list_dir", Input: `{"path":"."}`},
			}, Stop: "tool_calls", In: 40, Out: 30},
		},
		{
			"a reply cut at max_tokens finishes with length and keeps broken arguments",
			`{tool_calls: [{name: write_file, raw_input: '{"path": "a.txt", "content": "unfini'}], stop: max_tokens, usage: {input: 40, output: 8}}`,
			reply{Blocks: []block{{Type: "tool_use", ID: "call_…", Name: "write_file", Input: `{"path": "a.txt", "content": "unfini`}}, Stop: "length", In: 40, Out: 8},
		},
		{
			"a refusal is message.refusal, content null, finishing with stop",
			`{text: "I can't help with that.", stop: refusal, usage: {input: 40, output: 6}}`,
			reply{Blocks: []block{{Type: "refusal", Text: "I can't help with that."}}, Stop: "stop", In: 40, Out: 6},
		},
	}
	for _, tt := range tests {
		for _, mode := range modes {
			t.Run(mode.name+": "+tt.name, func(t *testing.T) {
				hs, _ := startServer(t, "turns: ["+tt.turn+"]", scripted.ServerConfig{})
				r, _, err := callOpenAI(t.Context(), openaiClient(hs.URL), openaiParams(), mode.stream)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, masked(openaiView(r))); diff != "" {
					t.Errorf("reply (-want +got):\n%s", diff)
				}
				if r.Model != "gpt-test" {
					t.Errorf("model = %q; want the requested model echoed", r.Model)
				}
			})
		}
	}
}

func TestOpenAIStreamSendsUsageOnlyWhenAsked(t *testing.T) {
	hs, _ := startServer(t, `turns: [{text: hi, usage: {input: 9, output: 2}}]`, scripted.ServerConfig{})
	c := openaiClient(hs.URL)
	s := c.Chat.Completions.NewStreaming(t.Context(), openaiParams())
	defer s.Close()
	for s.Next() {
		if u := s.Current().Usage; u.TotalTokens != 0 {
			t.Errorf("usage %+v sent without stream_options.include_usage", u)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenAIErrors(t *testing.T) {
	tests := []struct {
		name, turn, wantType, wantCode, wantRetryAfter string
		wantStatus                                     int
	}{
		{"a 429 carries its retry-after header", `{status: 429, headers: {retry-after: "7"}, error: {type: requests, code: rate_limit_exceeded}}`, "requests", "rate_limit_exceeded", "7", 429},
		{"a quota refusal is a 429 insufficient_quota", `{status: 429, error: {type: insufficient_quota, message: "You exceeded your current quota"}}`, "insufficient_quota", "insufficient_quota", "", 429},
		{"an Anthropic-style 529 becomes OpenAI's 503, in OpenAI's words", `{status: 529}`, "server_error", "", "", 503},
		{"a 401 is OpenAI's invalid_api_key, not Anthropic's authentication_error", `{status: 401}`, "invalid_request_error", "invalid_api_key", "", 401},
		{"a bare 429 is OpenAI's requests and rate_limit_exceeded", `{status: 429}`, "requests", "rate_limit_exceeded", "", 429},
	}
	for _, tt := range tests {
		for _, mode := range modes {
			t.Run(mode.name+": "+tt.name, func(t *testing.T) {
				hs, _ := startServer(t, "turns: ["+tt.turn+"]", scripted.ServerConfig{})
				_, _, err := callOpenAI(t.Context(), openaiClient(hs.URL), openaiParams(), mode.stream)
				var apiErr *openai.Error
				if !errors.As(err, &apiErr) {
					t.Fatalf("error = %v (%T); want *openai.Error", err, err)
				}
				got := []any{apiErr.StatusCode, apiErr.Type, apiErr.Code, apiErr.Response.Header.Get("Retry-After")}
				if diff := cmp.Diff([]any{tt.wantStatus, tt.wantType, tt.wantCode, tt.wantRetryAfter}, got); diff != "" {
					t.Errorf("status, type, code, retry-after (-want +got):\n%s", diff)
				}
				if want := llm.ClassifyStatus(tt.wantStatus, tt.wantType, ""); llm.ClassifyStatus(apiErr.StatusCode, apiErr.Type, apiErr.Message) != want {
					t.Errorf("the error classifies differently from its script")
				}
			})
		}
	}
}

func TestOpenAIDroppedConnection(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name+": a dropped connection is a client error, not an API error", func(t *testing.T) {
			hs, _ := startServer(t, `turns: [{drop: true, text: "This reply will never be finished, the line goes dead."}]`, scripted.ServerConfig{})
			r, chunks, err := callOpenAI(t.Context(), openaiClient(hs.URL), openaiParams(), mode.stream)
			var apiErr *openai.Error
			if err == nil || errors.As(err, &apiErr) {
				t.Fatalf("completion = %+v, error = %v; want a transport error", r, err)
			}
			if mode.stream && chunks == 0 {
				t.Errorf("no chunks before the drop; want the first chunks sent")
			}
		})
	}
}

func TestOpenAIRequestIsParsed(t *testing.T) {
	hs, sim := startServer(t, `turns: [{tool_calls: [{name: read_file, input: {path: a.txt}}, {name: read_file, input: {path: b.txt}}]}, {text: done}]`, scripted.ServerConfig{})
	c := openaiClient(hs.URL)
	p := openaiParams(openai.SystemMessage("Be brief."), openai.DeveloperMessage("Be right."), openai.UserMessage("Summarise notes"))
	p.MaxCompletionTokens = openai.Int(512)
	p.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name: "read_file", Description: openai.String("Read a file"),
		Parameters: shared.FunctionParameters{"type": "object"},
	})}
	first, err := c.Chat.Completions.New(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	calls := first.Choices[0].Message.ToolCalls
	p.Messages = append(p.Messages, first.Choices[0].Message.ToParam(),
		openai.ToolMessage("A: garden", calls[0].ID), openai.ToolMessage("B: kitchen", calls[1].ID))
	second, err := c.Chat.Completions.New(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if second.Choices[0].Message.Content != "done" {
		t.Errorf("second reply = %q; want done (position 1)", second.Choices[0].Message.Content)
	}
	got := sim.Requests()
	if len(got) != 2 {
		t.Fatalf("recorded %d requests; want 2", len(got))
	}
	want := llm.Request{
		Model: "gpt-test", System: "Be brief.\n\nBe right.", MaxTokens: 512,
		Messages: []llm.Message{
			llm.UserText("Summarise notes"),
			{Role: llm.Assistant, Content: []llm.Block{
				llm.ToolUse(calls[0].ID, "read_file", json.RawMessage(`{"path":"a.txt"}`)),
				llm.ToolUse(calls[1].ID, "read_file", json.RawMessage(`{"path":"b.txt"}`)),
			}},
			{Role: llm.User, Content: []llm.Block{
				llm.ToolResult(calls[0].ID, "A: garden", false),
				llm.ToolResult(calls[1].ID, "B: kitchen", false),
			}},
		},
		Tools: []llm.ToolSpec{{Name: "read_file", Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object"}`)}},
	}
	if diff := cmp.Diff(want, got[1]); diff != "" {
		t.Errorf("parsed request (-want +got):\n%s", diff)
	}
}

func TestOpenAIPathWithoutV1(t *testing.T) {
	hs, _ := startServer(t, `turns: [{text: hi}]`, scripted.ServerConfig{})
	c := openai.NewClient(option.WithBaseURL(hs.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	r, err := c.Chat.Completions.New(t.Context(), openaiParams())
	if err != nil || r.Choices[0].Message.Content != "hi" {
		t.Errorf("POST /chat/completions: %v", err)
	}
}
