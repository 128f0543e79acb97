package scripted

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/cachepoint"
)

// anthropicDialect speaks the Anthropic Messages API.
type anthropicDialect struct{}

type anthropicRequest struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	System    json.RawMessage    `json:"system"`
	Messages  []anthropicMessage `json:"messages"`
	Tools     []struct {
		Name         string          `json:"name"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"input_schema"`
		CacheControl *cacheControl   `json:"cache_control"`
	} `json:"tools"`
	Stream bool `json:"stream"`
	// CacheControl at the top level is automatic caching: a breakpoint
	// on the last block.
	CacheControl *cacheControl `json:"cache_control"`
}

// cacheControl is a cache breakpoint.
type cacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl"`
}

// ttl is the lifetime the breakpoint asks for.
func (c *cacheControl) ttl() time.Duration {
	if c.TTL == "1h" {
		return cacheTTLLong
	}
	return cacheTTL
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
	// CacheControl makes the block a cache breakpoint.
	CacheControl *cacheControl `json:"cache_control"`
}

func (anthropicDialect) wire() wire              { return wireAnthropic }
func (anthropicDialect) requestIDHeader() string { return "request-id" }
func (anthropicDialect) toolID(int) string       { return newID("toolu_", 24) }

// anthropicFields are the top-level fields a Messages request may hold:
// those of the pinned SDK's MessageNewParams and BetaMessageNewParams, and
// stream. The API refuses any other ("thread: Extra inputs are not
// permitted"), and so does the simulator, so that a client sending one
// learns it here rather than in production.
var anthropicFields = fieldSet("cache_control", "compaction", "container", "context_management", "diagnostics",
	"fallback_credit_token", "fallbacks", "inference_geo", "max_tokens", "mcp_servers", "messages", "metadata",
	"model", "output_config", "output_format", "service_tier", "speed", "stop_sequences", "stream", "system",
	"temperature", "thinking", "tool_choice", "tools", "top_k", "top_p")

// anthropicCountFields are the fields a token-counting request may hold:
// a Messages request's, less those that shape the output.
var anthropicCountFields = fieldSet("cache_control", "context_management", "mcp_servers", "messages", "model",
	"output_config", "output_format", "speed", "system", "thinking", "tool_choice", "tools")

var anthropicMessageFields = fieldSet("role", "content")

func fieldSet(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// extraInput returns the first field of an object not in allowed, as the
// API names it ("messages.0.name"), or "".
func extraInput(raw json.RawMessage, allowed map[string]bool, at string) (string, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return "", err
	}
	var extra []string
	for k := range fields {
		if !allowed[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) == 0 {
		return "", nil
	}
	slices.Sort(extra)
	return at + extra[0], nil
}

// checkAnthropicFields refuses a request with a field the API does not
// know, at the top level or in a message, with the API's error.
func checkAnthropicFields(raw []byte, allowed map[string]bool) error {
	extra, err := extraInput(raw, allowed, "")
	if err != nil {
		return fmt.Errorf("request body: %w", err)
	}
	if extra == "" {
		var in struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if json.Unmarshal(raw, &in) == nil {
			for i, m := range in.Messages {
				if extra, _ = extraInput(m, anthropicMessageFields, fmt.Sprintf("messages.%d.", i)); extra != "" {
					break
				}
			}
		}
	}
	if extra != "" {
		return &wireError{status: http.StatusBadRequest, body: ErrorBody{
			Type: "invalid_request_error", Message: extra + ": Extra inputs are not permitted"}}
	}
	return nil
}

// required refuses a request without one of the fields the API requires.
func required(raw []byte, names ...string) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return fmt.Errorf("request body: %w", err)
	}
	for _, n := range names {
		if _, ok := fields[n]; !ok {
			return &wireError{status: http.StatusBadRequest, body: ErrorBody{
				Type: "invalid_request_error", Message: n + ": Field required"}}
		}
	}
	return nil
}

func (anthropicDialect) decode(raw []byte) (*llm.Request, wireOptions, error) {
	if err := checkAnthropicFields(raw, anthropicFields); err != nil {
		return nil, wireOptions{}, err
	}
	if err := required(raw, "model", "messages", "max_tokens"); err != nil {
		return nil, wireOptions{}, err
	}
	var in anthropicRequest
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, wireOptions{}, fmt.Errorf("request body: %w", err)
	}
	req, bp, err := in.request()
	if err != nil {
		return nil, wireOptions{}, err
	}
	return req, wireOptions{stream: in.Stream, n: 1, marks: bp}, nil
}

// decodeCountTokens reads a token-counting request.
func decodeCountTokens(raw []byte) (*llm.Request, error) {
	if err := checkAnthropicFields(raw, anthropicCountFields); err != nil {
		return nil, err
	}
	if err := required(raw, "model", "messages"); err != nil {
		return nil, err
	}
	var in anthropicRequest
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	req, _, err := in.request()
	return req, err
}

// request maps a decoded request onto llm's, with its cache breakpoints
// as pieces of the simulator's prompt (promptOf's order: each tool, the
// system prompt, each content block kept). A breakpoint anywhere in the
// system prompt marks its end, where the simulator sees one piece.
func (in *anthropicRequest) request() (*llm.Request, marks, error) {
	if len(in.Messages) == 0 {
		return nil, nil, errors.New("messages: at least one message is required")
	}
	req := &llm.Request{Model: in.Model, MaxTokens: in.MaxTokens}
	bp := marks{}
	count := 0
	mark := func(at int, cc *cacheControl) {
		if cc != nil {
			count++
			bp[at] = max(bp[at], cc.ttl())
		}
	}
	for i, t := range in.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
		mark(i, t.CacheControl)
	}
	sys, sysCache, err := anthropicText(in.System)
	if err != nil {
		return nil, nil, fmt.Errorf("system: %w", err)
	}
	req.System = sys
	at := len(req.Tools)
	if sys != "" {
		for _, cc := range sysCache {
			mark(at, cc)
		}
		at++
	}
	for i, m := range in.Messages {
		if m.Role != string(llm.User) && m.Role != string(llm.Assistant) {
			return nil, nil, fmt.Errorf("messages.%d.role: unexpected role %q", i, m.Role)
		}
		blocks, caches, err := anthropicContent(m.Content)
		if err != nil {
			return nil, nil, fmt.Errorf("messages.%d.content: %w", i, err)
		}
		for j, cc := range caches {
			mark(at+j, cc)
		}
		at += len(blocks)
		req.Messages = append(req.Messages, llm.Message{Role: llm.Role(m.Role), Content: blocks})
	}
	if in.CacheControl != nil && at > 0 {
		mark(at-1, in.CacheControl)
	}
	if count > cachepoint.Max {
		return nil, nil, &wireError{status: http.StatusBadRequest, body: ErrorBody{Type: "invalid_request_error",
			Message: fmt.Sprintf("A maximum of %d blocks with cache_control may be provided. Found %d.", cachepoint.Max, count)}}
	}
	return req, bp, nil
}

// anthropicText reads a field that is a string or a list of text blocks
// (system, a tool result's content), joining the texts with newlines, and
// the blocks' cache breakpoints.
func anthropicText(raw json.RawMessage) (string, []*cacheControl, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil, nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", nil, errors.New("want a string or a list of blocks")
	}
	var texts []string
	var caches []*cacheControl
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
		if b.CacheControl != nil {
			caches = append(caches, b.CacheControl)
		}
	}
	return strings.Join(texts, "\n"), caches, nil
}

// anthropicContent reads a message's content: a string or a list of
// blocks, with each kept block's cache breakpoint (nil: none). Block types
// nightshift does not use (images, thinking) are skipped.
func anthropicContent(raw json.RawMessage) ([]llm.Block, []*cacheControl, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []llm.Block{llm.Text(s)}, []*cacheControl{nil}, nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, nil, errors.New("want a string or a list of blocks")
	}
	var out []llm.Block
	var caches []*cacheControl
	for i, b := range blocks {
		switch b.Type {
		case "text":
			out = append(out, llm.Text(b.Text))
		case "tool_use":
			out = append(out, llm.ToolUse(b.ID, b.Name, b.Input))
		case "tool_result":
			text, inner, err := anthropicText(b.Content)
			if err != nil {
				return nil, nil, fmt.Errorf("%d.content: %w", i, err)
			}
			out = append(out, llm.ToolResult(b.ToolUseID, text, b.IsError))
			// A breakpoint inside a tool result's content marks the
			// result.
			if b.CacheControl == nil && len(inner) > 0 {
				b.CacheControl = inner[len(inner)-1]
			}
		default:
			continue
		}
		caches = append(caches, b.CacheControl)
	}
	return out, caches, nil
}

func (anthropicDialect) writeError(w http.ResponseWriter, status int, body ErrorBody, requestID string) {
	writeJSON(w, status, map[string]any{
		"type":       "error",
		"error":      map[string]string{"type": body.Type, "message": body.Message},
		"request_id": requestID,
	})
}

// anthropicUsage is a reply's usage in the API's shape: input_tokens
// counts only the uncached prompt tokens, the cache's are apart.
func anthropicUsage(u llm.Usage, output int64) map[string]int64 {
	return map[string]int64{
		"input_tokens":                u.Uncached(),
		"cache_creation_input_tokens": u.CacheWriteTokens,
		"cache_read_input_tokens":     u.CacheReadTokens,
		"output_tokens":               output,
	}
}

func (anthropicDialect) writeReply(w http.ResponseWriter, r *wireReply) {
	content := make([]any, 0, len(r.content()))
	for _, b := range r.content() {
		content = append(content, anthropicOut(b))
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id":            newID("msg_", 24),
		"type":          "message",
		"role":          "assistant",
		"model":         r.model,
		"content":       content,
		"stop_reason":   string(r.stop),
		"stop_sequence": nil,
		"usage":         anthropicUsage(r.usage, r.usage.OutputTokens),
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

func (anthropicDialect) writeStream(w http.ResponseWriter, r *wireReply, _ wireOptions, end streamEnd) {
	s := newSSE(w)
	s.event("message_start", map[string]any{
		"type": "message_start",
		"message": map[string]any{
			"id": newID("msg_", 24), "type": "message", "role": "assistant", "model": r.model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": anthropicUsage(r.usage, 1),
		},
	})
	s.event("ping", map[string]string{"type": "ping"})
	if !anthropicBlocks(s, r.content(), end.stops()) {
		if end.errEvent != nil {
			s.event("error", map[string]any{
				"type":  "error",
				"error": map[string]string{"type": end.errEvent.Type, "message": end.errEvent.Message},
			})
		}
		return
	}
	s.event("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": string(r.stop), "stop_sequence": nil},
		"usage": map[string]int64{"output_tokens": r.usage.OutputTokens},
	})
	s.event("message_stop", map[string]string{"type": "message_stop"})
}

// anthropicBlocks streams the content blocks. With stop set it stops after
// the first delta (or at once, for a reply without content) and returns
// false.
func anthropicBlocks(s *sseWriter, content []llm.Block, stop bool) bool {
	for i, b := range content {
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
			if stop {
				return false
			}
		}
		if stop {
			return false
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	return !stop
}

// writeModels lists models in the Models API's shape.
func (anthropicDialect) writeModels(w http.ResponseWriter, ids []string, one string, created time.Time, _ string) {
	model := func(id string) map[string]any {
		return map[string]any{"type": "model", "id": id, "display_name": id, "created_at": created.UTC().Format(time.RFC3339)}
	}
	if one != "" {
		writeJSON(w, http.StatusOK, model(one))
		return
	}
	data := make([]any, len(ids))
	for i, id := range ids {
		data[i] = model(id)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "has_more": false, "first_id": ids[0], "last_id": ids[len(ids)-1]})
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
