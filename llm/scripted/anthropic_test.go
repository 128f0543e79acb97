package scripted_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

func anthropicClient(url string, opts ...option.RequestOption) anthropic.Client {
	return anthropic.NewClient(append([]option.RequestOption{
		option.WithBaseURL(url), option.WithAPIKey("test"), option.WithMaxRetries(0),
	}, opts...)...)
}

func anthropicParams(msgs ...anthropic.MessageParam) anthropic.MessageNewParams {
	if len(msgs) == 0 {
		msgs = []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Summarise notes.txt"))}
	}
	return anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 1024, Messages: msgs}
}

// callAnthropic makes one call in the given mode, accumulating a stream as
// a streaming client does.
func callAnthropic(ctx context.Context, c anthropic.Client, p anthropic.MessageNewParams, stream bool) (*anthropic.Message, int, error) {
	if !stream {
		m, err := c.Messages.New(ctx, p)
		return m, 0, err
	}
	s := c.Messages.NewStreaming(ctx, p)
	defer s.Close()
	var m anthropic.Message
	events := 0
	for s.Next() {
		events++
		if err := m.Accumulate(s.Current()); err != nil {
			return nil, events, err
		}
	}
	if err := s.Err(); err != nil {
		return nil, events, err
	}
	return &m, events, nil
}

func anthropicView(m *anthropic.Message) reply {
	r := reply{Stop: string(m.StopReason), In: m.Usage.InputTokens, Out: m.Usage.OutputTokens}
	for _, b := range m.Content {
		r.Blocks = append(r.Blocks, block{Type: b.Type, Text: b.Text, ID: b.ID, Name: b.Name, Input: string(b.Input)})
	}
	return r
}

func TestAnthropicReplies(t *testing.T) {
	tests := []struct {
		name, turn string
		want       reply
	}{
		{
			"a text reply ends the turn",
			`{text: "All three notes are about the garden, and the longest is the second one.", usage: {input: 40, output: 17}}`,
			reply{Blocks: []block{{Type: "text", Text: "All three notes are about the garden, and the longest is the second one."}}, Stop: "end_turn", In: 40, Out: 17},
		},
		{
			"several tool calls come after the text",
			`{text: "Reading both.", usage: {input: 40, output: 30}, tool_calls: [{name: read_file, input: {path: notes/a.txt}}, {id: toolu_x, name: list_dir, input: {path: "."}}]}`,
			reply{Blocks: []block{
				{Type: "text", Text: "Reading both."},
				{Type: "tool_use", ID: "toolu_…", Name: "read_file", Input: `{"path":"notes/a.txt"}`},
				{Type: "tool_use", ID: "toolu_x", Name: "list_dir", Input: `{"path":"."}`},
			}, Stop: "tool_use", In: 40, Out: 30},
		},
		{
			"a reply cut at max_tokens says so",
			`{text: "The five steps are: 1. Mix the", stop: max_tokens, usage: {input: 40, output: 8}}`,
			reply{Blocks: []block{{Type: "text", Text: "The five steps are: 1. Mix the"}}, Stop: "max_tokens", In: 40, Out: 8},
		},
		{
			"a refusal keeps its stop reason",
			`{text: "No.", stop: refusal, usage: {input: 40, output: 1}}`,
			reply{Blocks: []block{{Type: "text", Text: "No."}}, Stop: "refusal", In: 40, Out: 1},
		},
		{
			"an empty reply has no content",
			`{empty: true, usage: {input: 40, output: 1}}`,
			reply{Stop: "end_turn", In: 40, Out: 1},
		},
	}
	for _, tt := range tests {
		for _, mode := range modes {
			t.Run(mode.name+": "+tt.name, func(t *testing.T) {
				hs, _ := startServer(t, "turns: ["+tt.turn+"]", scripted.ServerConfig{})
				m, _, err := callAnthropic(t.Context(), anthropicClient(hs.URL), anthropicParams(), mode.stream)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, masked(anthropicView(m))); diff != "" {
					t.Errorf("reply (-want +got):\n%s", diff)
				}
				if m.Model != "claude-test" {
					t.Errorf("model = %q; want the requested model echoed", m.Model)
				}
			})
		}
	}
}

func TestAnthropicBrokenToolInput(t *testing.T) {
	hs, _ := startServer(t, `turns: [{tool_calls: [{name: write_file, raw_input: '{"path": "a.txt", "content": "unfini'}], stop: max_tokens}]`, scripted.ServerConfig{})
	t.Run("streaming delivers the broken JSON verbatim in its input_json_deltas", func(t *testing.T) {
		// Read the deltas, not Message.Accumulate: the SDK (v1.84.0)
		// replaces non-JSON input with {} when the block stops.
		c := anthropicClient(hs.URL)
		s := c.Messages.NewStreaming(t.Context(), anthropicParams())
		defer s.Close()
		var input string
		for s.Next() {
			if ev := s.Current(); ev.Type == "content_block_delta" && ev.Delta.Type == "input_json_delta" {
				input += ev.Delta.PartialJSON
			}
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		if input != `{"path": "a.txt", "content": "unfini` {
			t.Errorf("input = %s", input)
		}
	})
	t.Run("non-streaming delivers it as a JSON string, not an object", func(t *testing.T) {
		m, _, err := callAnthropic(t.Context(), anthropicClient(hs.URL), anthropicParams(), false)
		if err != nil {
			t.Fatal(err)
		}
		var s string
		if err := json.Unmarshal(m.Content[0].Input, &s); err != nil || s != `{"path": "a.txt", "content": "unfini` {
			t.Errorf("input = %s; want the broken text as a JSON string", m.Content[0].Input)
		}
	})
}

func TestAnthropicErrors(t *testing.T) {
	tests := []struct {
		name, turn, wantType, wantRetryAfter string
		wantStatus                           int
	}{
		{"a 429 carries its retry-after header", `{status: 429, headers: {retry-after: "7"}}`, "rate_limit_error", "7", 429},
		{"an overload is 529", `{status: 529, error: {message: Overloaded}}`, "overloaded_error", "", 529},
		{"a credit refusal is a 400 with its message", `{status: 400, error: {message: "Your credit balance is too low"}}`, "invalid_request_error", "", 400},
	}
	for _, tt := range tests {
		for _, mode := range modes {
			t.Run(mode.name+": "+tt.name, func(t *testing.T) {
				hs, _ := startServer(t, "turns: ["+tt.turn+"]", scripted.ServerConfig{})
				_, _, err := callAnthropic(t.Context(), anthropicClient(hs.URL), anthropicParams(), mode.stream)
				var apiErr *anthropic.Error
				if !errors.As(err, &apiErr) {
					t.Fatalf("error = %v (%T); want *anthropic.Error", err, err)
				}
				got := []any{apiErr.StatusCode, string(apiErr.Type()), apiErr.Response.Header.Get("Retry-After")}
				if diff := cmp.Diff([]any{tt.wantStatus, tt.wantType, tt.wantRetryAfter}, got); diff != "" {
					t.Errorf("status, type, retry-after (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestAnthropicDroppedConnection(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name+": a dropped connection is a client error, not an API error", func(t *testing.T) {
			hs, _ := startServer(t, `turns: [{drop: true, text: "This reply will never be finished, the line goes dead."}]`, scripted.ServerConfig{})
			m, events, err := callAnthropic(t.Context(), anthropicClient(hs.URL), anthropicParams(), mode.stream)
			var apiErr *anthropic.Error
			if err == nil || errors.As(err, &apiErr) {
				t.Fatalf("message = %+v, error = %v; want a transport error", m, err)
			}
			if mode.stream && events == 0 {
				t.Errorf("no events before the drop; want the first events sent")
			}
		})
	}
}

func TestAnthropicRequestIsParsed(t *testing.T) {
	var seen []*llm.Request
	hs, sim := startServer(t, `turns: [{tool_calls: [{name: read_file, input: {path: a.txt}}]}, {text: done}]`,
		scripted.ServerConfig{OnRequest: func(path string, req *llm.Request, raw []byte) {
			if path != "/v1/messages" || !json.Valid(raw) {
				t.Errorf("OnRequest(%q, raw %d bytes)", path, len(raw))
			}
			seen = append(seen, req)
		}})
	c := anthropicClient(hs.URL)
	p := anthropicParams()
	p.System = []anthropic.TextBlockParam{{Text: "Be brief."}, {Text: "Be right."}}
	p.Tools = []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
		Name: "read_file", Description: anthropic.String("Read a file"),
		InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"path": map[string]any{"type": "string"}}},
	}}}
	first, err := c.Messages.New(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	p.Messages = append(p.Messages, first.ToParam(), anthropic.NewUserMessage(
		anthropic.NewToolResultBlock(first.Content[0].ID, "no such file", true)))
	second, err := c.Messages.New(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if second.Content[0].Text != "done" {
		t.Errorf("second reply = %q; want done (position 1)", second.Content[0].Text)
	}
	got := sim.Requests()
	if len(got) != 2 || len(seen) != 2 {
		t.Fatalf("recorded %d requests, hook saw %d; want 2", len(got), len(seen))
	}
	want := llm.Request{
		Model: "claude-test", System: "Be brief.\nBe right.", MaxTokens: 1024,
		Messages: []llm.Message{
			llm.UserText("Summarise notes.txt"),
			{Role: llm.Assistant, Content: []llm.Block{llm.ToolUse(first.Content[0].ID, "read_file", json.RawMessage(`{"path":"a.txt"}`))}},
			{Role: llm.User, Content: []llm.Block{llm.ToolResult(first.Content[0].ID, "no such file", true)}},
		},
		Tools: []llm.ToolSpec{{Name: "read_file", Description: "Read a file", InputSchema: got[1].Tools[0].InputSchema}},
	}
	if diff := cmp.Diff(want, got[1]); diff != "" {
		t.Errorf("parsed request (-want +got):\n%s", diff)
	}
	if !json.Valid(got[1].Tools[0].InputSchema) {
		t.Errorf("input schema %s is not JSON", got[1].Tools[0].InputSchema)
	}
}

func TestAnthropicSessionHeaderSeparatesAttempts(t *testing.T) {
	hs, _ := startServer(t, `turns: [{attempts: [{status: 500}, {text: ok}]}]`, scripted.ServerConfig{})
	for _, session := range []string{"night-1", "night-2"} {
		c := anthropicClient(hs.URL, option.WithHeader(scripted.SessionHeader, session))
		if _, err := c.Messages.New(t.Context(), anthropicParams()); err == nil {
			t.Errorf("session %s: first attempt succeeded; want the scripted 500", session)
		}
		if _, err := c.Messages.New(t.Context(), anthropicParams()); err != nil {
			t.Errorf("session %s: second attempt: %v", session, err)
		}
	}
}

// anthropicParamsToolResult is the user message answering one tool use.
func anthropicParamsToolResult(id, content string) anthropic.MessageParam {
	return anthropic.NewUserMessage(anthropic.NewToolResultBlock(id, content, false))
}
