package scripted

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/llm"
)

// openaiDialect speaks the OpenAI Chat Completions API, which
// OpenAI-compatible servers (Ollama, vLLM, llama.cpp) share.
type openaiDialect struct{}

type openaiRequest struct {
	Model               string          `json:"model"`
	Messages            []openaiMessage `json:"messages"`
	MaxTokens           int             `json:"max_tokens"`
	MaxCompletionTokens int             `json:"max_completion_tokens"`
	Tools               []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	// N is the number of choices; nil is one.
	N             *int `json:"n"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type openaiMessage struct {
	Role       string           `json:"role"`
	Content    json.RawMessage  `json:"content"`
	ToolCalls  []openaiToolCall `json:"tool_calls"`
	ToolCallID string           `json:"tool_call_id"`
}

type openaiToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func (openaiDialect) wire() wire              { return wireOpenAI }
func (openaiDialect) requestIDHeader() string { return "x-request-id" }
func (openaiDialect) toolID(int) string       { return newID("call_", 24) }

// maxChoices is the most choices the API gives one request (n).
const maxChoices = 128

func (openaiDialect) decode(raw []byte) (*llm.Request, wireOptions, error) {
	var in openaiRequest
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, wireOptions{}, fmt.Errorf("request body: %w", err)
	}
	if len(in.Messages) == 0 {
		return nil, wireOptions{}, errors.New("messages: at least one message is required")
	}
	req := &llm.Request{Model: in.Model, MaxTokens: in.MaxTokens}
	if in.MaxCompletionTokens != 0 {
		req.MaxTokens = in.MaxCompletionTokens
	}
	var system []string
	// toolResults is the user message that collects consecutive tool
	// messages, as the Anthropic shape (and llm) has them in one message.
	toolResults := -1
	for i, m := range in.Messages {
		text, err := openaiText(m.Content)
		if err != nil {
			return nil, wireOptions{}, fmt.Errorf("messages[%d].content: %w", i, err)
		}
		switch m.Role {
		case "system", "developer":
			system = append(system, text)
			continue
		case "user":
			req.Messages = append(req.Messages, llm.UserText(text))
		case "assistant":
			msg := llm.Message{Role: llm.Assistant}
			if text != "" {
				msg.Content = append(msg.Content, llm.Text(text))
			}
			for _, tc := range m.ToolCalls {
				msg.Content = append(msg.Content, llm.ToolUse(tc.ID, tc.Function.Name, json.RawMessage(tc.Function.Arguments)))
			}
			req.Messages = append(req.Messages, msg)
		case "tool":
			b := llm.ToolResult(m.ToolCallID, text, false)
			if toolResults == len(req.Messages)-1 && toolResults >= 0 {
				last := &req.Messages[toolResults]
				last.Content = append(last.Content, b)
				continue
			}
			req.Messages = append(req.Messages, llm.Message{Role: llm.User, Content: []llm.Block{b}})
			toolResults = len(req.Messages) - 1
			continue
		default:
			return nil, wireOptions{}, fmt.Errorf("messages[%d].role: unexpected role %q", i, m.Role)
		}
		toolResults = -1
	}
	req.System = strings.Join(system, "\n\n")
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, InputSchema: t.Function.Parameters})
	}
	opts := wireOptions{stream: in.Stream, n: 1}
	if in.N != nil {
		// The API's own refusals of an n out of range.
		switch n := *in.N; {
		case n < 1:
			return nil, wireOptions{}, &wireError{status: http.StatusBadRequest, body: ErrorBody{
				Type: "invalid_request_error", Code: "integer_below_min_value", Param: "n",
				Message: fmt.Sprintf("Invalid 'n': integer below minimum value. Expected a value >= 1, but got %d instead.", n)}}
		case n > maxChoices:
			return nil, wireOptions{}, &wireError{status: http.StatusBadRequest, body: ErrorBody{
				Type: "invalid_request_error", Code: "integer_above_max_value", Param: "n",
				Message: fmt.Sprintf("Invalid 'n': integer above maximum value. Expected a value <= %d, but got %d instead.", maxChoices, n)}}
		}
		opts.n = *in.N
	}
	if in.StreamOptions != nil {
		opts.includeUsage = in.StreamOptions.IncludeUsage
	}
	return req, opts, nil
}

// openaiText reads a message's content: null, a string, or a list of
// parts whose text parts are joined with newlines.
func openaiText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("want a string or a list of content parts")
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

func (openaiDialect) writeError(w http.ResponseWriter, status int, body ErrorBody, _ string) {
	if status == 529 {
		// 529 is Anthropic's overload status; OpenAI says 503.
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, map[string]any{"error": openaiError(body)})
}

// openaiError is an error object as the API writes it: code and param are
// null when there are none.
func openaiError(body ErrorBody) map[string]any {
	return map[string]any{"message": body.Message, "type": body.Type, "param": nullable(body.Param), "code": nullable(body.Code)}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// finishReason maps a stop reason onto OpenAI's finish_reason. A refusal
// finishes with "stop": the API says it in message.refusal instead.
func finishReason(s llm.StopReason) string {
	switch s {
	case llm.ToolUseStop:
		return "tool_calls"
	case llm.MaxTokens:
		return "length"
	default:
		return "stop"
	}
}

// openaiParts splits reply content into the message text and its tool
// calls, OpenAI's shape.
func openaiParts(content []llm.Block) (string, []map[string]any) {
	var text strings.Builder
	var calls []map[string]any
	for _, b := range content {
		switch b.Type {
		case llm.TextBlock:
			text.WriteString(b.Text)
		case llm.ToolUseBlock:
			calls = append(calls, map[string]any{
				"id": b.ID, "type": "function",
				"function": map[string]string{"name": b.Name, "arguments": string(b.Input)},
			})
		}
	}
	return text.String(), calls
}

func openaiUsage(u llm.Usage) map[string]any {
	return map[string]any{
		"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens, "total_tokens": u.Total(),
		"prompt_tokens_details":     map[string]int64{"cached_tokens": u.CacheReadTokens, "audio_tokens": 0},
		"completion_tokens_details": map[string]int64{"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
	}
}

// openaiReplyMessage is one choice's message: a refusal's text goes in refusal,
// with content null, as the API sends it.
func openaiReplyMessage(content []llm.Block, stop llm.StopReason) map[string]any {
	text, calls := openaiParts(content)
	msg := map[string]any{"role": "assistant", "content": text, "refusal": nil, "annotations": []any{}}
	if stop == llm.Refusal {
		msg["content"], msg["refusal"] = nil, text
	}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	return msg
}

func (openaiDialect) writeReply(w http.ResponseWriter, r *wireReply) {
	choices := make([]any, len(r.choices))
	for i, c := range r.choices {
		choices[i] = map[string]any{"index": i, "message": openaiReplyMessage(c, r.stop), "finish_reason": finishReason(r.stop), "logprobs": nil}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id":      newID("chatcmpl-", 29),
		"object":  "chat.completion",
		"created": r.created,
		"model":   r.model,
		"choices": choices,
		"usage":   openaiUsage(r.usage),
	})
}

func (openaiDialect) writeStream(w http.ResponseWriter, r *wireReply, opts wireOptions, end streamEnd) {
	s := newSSE(w)
	id := newID("chatcmpl-", 29)
	chunk := func(i int, delta map[string]any, finish any) {
		c := map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": r.created, "model": r.model,
			"choices": []any{map[string]any{"index": i, "delta": delta, "finish_reason": finish, "logprobs": nil}},
		}
		if opts.includeUsage {
			c["usage"] = nil
		}
		s.event("", c)
	}
	// Each choice streams in turn, told apart by its index as the API's
	// chunks are; a cut or an error comes after the first choice's first
	// delta.
	for i, content := range r.choices {
		if !openaiChoice(chunk, i, content, r.stop, end.stops()) {
			if end.errEvent != nil {
				s.event("", map[string]any{"error": openaiError(*end.errEvent)})
			}
			return
		}
	}
	for i := range r.choices {
		chunk(i, map[string]any{}, finishReason(r.stop))
	}
	if opts.includeUsage {
		s.event("", map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": r.created, "model": r.model,
			"choices": []any{}, "usage": openaiUsage(r.usage),
		})
	}
	s.raw("", []byte("[DONE]"))
}

// openaiChoice streams one choice's deltas. With stop set it stops after
// the first delta and returns false.
func openaiChoice(chunk func(int, map[string]any, any), i int, content []llm.Block, reason llm.StopReason, stop bool) bool {
	field := "content"
	first := map[string]any{"role": "assistant", "content": "", "refusal": nil}
	if reason == llm.Refusal {
		field = "refusal"
		first = map[string]any{"role": "assistant", "content": nil, "refusal": ""}
	}
	chunk(i, first, nil)
	text, _ := openaiParts(content)
	for _, p := range pieces(text) {
		chunk(i, map[string]any{field: p}, nil)
		if stop {
			return false
		}
	}
	call := 0
	for _, b := range content {
		if b.Type != llm.ToolUseBlock {
			continue
		}
		chunk(i, map[string]any{"tool_calls": []any{map[string]any{
			"index": call, "id": b.ID, "type": "function",
			"function": map[string]string{"name": b.Name, "arguments": ""},
		}}}, nil)
		if stop {
			return false
		}
		for _, p := range pieces(string(b.Input)) {
			chunk(i, map[string]any{"tool_calls": []any{map[string]any{
				"index": call, "function": map[string]string{"arguments": p},
			}}}, nil)
		}
		call++
	}
	return !stop
}

// writeModels lists models in the Models API's shape.
func (openaiDialect) writeModels(w http.ResponseWriter, ids []string, one string, created time.Time, _ string) {
	model := func(id string) map[string]any {
		return map[string]any{"id": id, "object": "model", "created": created.Unix(), "owned_by": "system"}
	}
	if one != "" {
		writeJSON(w, http.StatusOK, model(one))
		return
	}
	data := make([]any, len(ids))
	for i, id := range ids {
		data[i] = model(id)
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}
