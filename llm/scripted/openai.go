package scripted

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

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
	opts := wireOptions{stream: in.Stream}
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

func (openaiDialect) writeError(w http.ResponseWriter, status int, body ErrorBody) {
	if status == 529 {
		// 529 is Anthropic's overload status; OpenAI says 503.
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, map[string]any{
		"error": map[string]any{"message": body.Message, "type": body.Type, "code": body.Code, "param": nil},
	})
}

// finishReason maps a stop reason onto OpenAI's finish_reason.
func finishReason(s llm.StopReason) string {
	switch s {
	case llm.ToolUseStop:
		return "tool_calls"
	case llm.MaxTokens:
		return "length"
	case llm.Refusal:
		return "content_filter"
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

func openaiUsage(u llm.Usage) map[string]int64 {
	return map[string]int64{"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens, "total_tokens": u.Total()}
}

func (openaiDialect) writeReply(w http.ResponseWriter, r *wireReply) {
	text, calls := openaiParts(r.content)
	msg := map[string]any{"role": "assistant", "content": text, "refusal": nil}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	w.Header().Set("x-request-id", "req_"+r.id)
	writeJSON(w, http.StatusOK, map[string]any{
		"id":      "chatcmpl-" + r.id,
		"object":  "chat.completion",
		"created": r.created,
		"model":   r.model,
		"choices": []any{map[string]any{
			"index": 0, "message": msg, "finish_reason": finishReason(r.stop), "logprobs": nil,
		}},
		"usage": openaiUsage(r.usage),
	})
}

func (openaiDialect) writeStream(w http.ResponseWriter, r *wireReply, opts wireOptions, cut bool) {
	w.Header().Set("x-request-id", "req_"+r.id)
	s := newSSE(w)
	chunk := func(delta map[string]any, finish any) {
		c := map[string]any{
			"id": "chatcmpl-" + r.id, "object": "chat.completion.chunk", "created": r.created, "model": r.model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}},
		}
		if opts.includeUsage {
			c["usage"] = nil
		}
		s.event("", c)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	text, _ := openaiParts(r.content)
	for _, p := range pieces(text) {
		chunk(map[string]any{"content": p}, nil)
		if cut {
			return
		}
	}
	call := 0
	for _, b := range r.content {
		if b.Type != llm.ToolUseBlock {
			continue
		}
		chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": call, "id": b.ID, "type": "function",
			"function": map[string]string{"name": b.Name, "arguments": ""},
		}}}, nil)
		if cut {
			return
		}
		for _, p := range pieces(string(b.Input)) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": call, "function": map[string]string{"arguments": p},
			}}}, nil)
		}
		call++
	}
	if cut {
		return
	}
	chunk(map[string]any{}, finishReason(r.stop))
	if opts.includeUsage {
		s.event("", map[string]any{
			"id": "chatcmpl-" + r.id, "object": "chat.completion.chunk", "created": r.created, "model": r.model,
			"choices": []any{}, "usage": openaiUsage(r.usage),
		})
	}
	s.raw("", []byte("[DONE]"))
}
