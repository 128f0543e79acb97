package scripted

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/nightshift-dev/nightshift/llm"
)

// anthropicDialect speaks the Anthropic Messages API.
type anthropicDialect struct{}

type anthropicRequest struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	System    json.RawMessage    `json:"system"`
	Messages  []anthropicMessage `json:"messages"`
	Tools     []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// anthropicBlock is a content block as sent by a client. Content (of a
// tool result) is a string or a list of blocks.
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func (anthropicDialect) decode(raw []byte) (*llm.Request, wireOptions, error) {
	var in anthropicRequest
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, wireOptions{}, fmt.Errorf("request body: %w", err)
	}
	if len(in.Messages) == 0 {
		return nil, wireOptions{}, errors.New("messages: at least one message is required")
	}
	req := &llm.Request{Model: in.Model, MaxTokens: in.MaxTokens}
	sys, err := anthropicText(in.System)
	if err != nil {
		return nil, wireOptions{}, fmt.Errorf("system: %w", err)
	}
	req.System = sys
	for i, m := range in.Messages {
		if m.Role != string(llm.User) && m.Role != string(llm.Assistant) {
			return nil, wireOptions{}, fmt.Errorf("messages.%d.role: unexpected role %q", i, m.Role)
		}
		blocks, err := anthropicContent(m.Content)
		if err != nil {
			return nil, wireOptions{}, fmt.Errorf("messages.%d.content: %w", i, err)
		}
		req.Messages = append(req.Messages, llm.Message{Role: llm.Role(m.Role), Content: blocks})
	}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	return req, wireOptions{stream: in.Stream}, nil
}

// anthropicText reads a field that is a string or a list of text blocks
// (system, a tool result's content), joining the texts with newlines.
func anthropicText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", errors.New("want a string or a list of blocks")
	}
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// anthropicContent reads a message's content: a string or a list of
// blocks. Block types nightshift does not use (images, thinking) are
// skipped.
func anthropicContent(raw json.RawMessage) ([]llm.Block, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []llm.Block{llm.Text(s)}, nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, errors.New("want a string or a list of blocks")
	}
	var out []llm.Block
	for i, b := range blocks {
		switch b.Type {
		case "text":
			out = append(out, llm.Text(b.Text))
		case "tool_use":
			out = append(out, llm.ToolUse(b.ID, b.Name, b.Input))
		case "tool_result":
			text, err := anthropicText(b.Content)
			if err != nil {
				return nil, fmt.Errorf("%d.content: %w", i, err)
			}
			out = append(out, llm.ToolResult(b.ToolUseID, text, b.IsError))
		}
	}
	return out, nil
}

func (anthropicDialect) writeError(w http.ResponseWriter, status int, body ErrorBody) {
	writeJSON(w, status, map[string]any{
		"type":  "error",
		"error": map[string]string{"type": body.Type, "message": body.Message},
	})
}

func (anthropicDialect) writeReply(w http.ResponseWriter, r *wireReply) {
	content := make([]any, 0, len(r.content))
	for _, b := range r.content {
		content = append(content, anthropicOut(b))
	}
	w.Header().Set("request-id", "req_"+r.id)
	writeJSON(w, http.StatusOK, map[string]any{
		"id":            "msg_" + r.id,
		"type":          "message",
		"role":          "assistant",
		"model":         r.model,
		"content":       content,
		"stop_reason":   string(r.stop),
		"stop_sequence": nil,
		"usage":         map[string]int64{"input_tokens": r.usage.InputTokens, "output_tokens": r.usage.OutputTokens},
	})
}

// anthropicOut encodes a reply block. A tool input that is not valid JSON
// (a scripted raw_input) cannot stand as an object in a JSON body, so it is
// sent as a JSON string: the client still gets an input that is not the
// object the tool wants, which is the failure being scripted.
func anthropicOut(b llm.Block) map[string]any {
	if b.Type == llm.TextBlock {
		return map[string]any{"type": "text", "text": b.Text}
	}
	var input any = b.Input
	if !json.Valid(b.Input) {
		input = string(b.Input)
	}
	return map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": input}
}

func (anthropicDialect) writeStream(w http.ResponseWriter, r *wireReply, _ wireOptions, cut bool) {
	w.Header().Set("request-id", "req_"+r.id)
	s := newSSE(w)
	s.event("message_start", map[string]any{
		"type": "message_start",
		"message": map[string]any{
			"id": "msg_" + r.id, "type": "message", "role": "assistant", "model": r.model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]int64{"input_tokens": r.usage.InputTokens, "output_tokens": 1},
		},
	})
	s.event("ping", map[string]string{"type": "ping"})
	for i, b := range r.content {
		var start map[string]any
		var deltas []map[string]any
		if b.Type == llm.TextBlock {
			start = map[string]any{"type": "text", "text": ""}
			for _, p := range pieces(b.Text) {
				deltas = append(deltas, map[string]any{"type": "text_delta", "text": p})
			}
		} else {
			start = map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}
			for _, p := range pieces(string(b.Input)) {
				deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": p})
			}
		}
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": start})
		for _, d := range deltas {
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
			if cut {
				return
			}
		}
		if cut {
			return
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	if cut {
		return
	}
	s.event("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": string(r.stop), "stop_sequence": nil},
		"usage": map[string]int64{"output_tokens": r.usage.OutputTokens},
	})
	s.event("message_stop", map[string]string{"type": "message_stop"})
}

// writeJSON answers with status and v as the JSON body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic("scripted: unencodable reply: " + err.Error()) // our own types only
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
