package scripted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/nightshift-dev/nightshift/llm"
)

// content builds the reply's content blocks. Tool-use IDs not given are
// generated as toolu_<n>, skipping any the scenario set itself, so IDs are
// unique within the reply.
func (r *Reply) content() []llm.Block {
	var out []llm.Block
	if r.Text != "" {
		out = append(out, llm.Text(r.Text))
	}
	used := make(map[string]bool, len(r.ToolCalls))
	for _, tc := range r.ToolCalls {
		used[tc.ID] = true
	}
	n := 0
	for _, tc := range r.ToolCalls {
		id := tc.ID
		for id == "" || (tc.ID == "" && used[id]) {
			n++
			id = fmt.Sprintf("toolu_%d", n)
		}
		used[id] = true
		out = append(out, llm.ToolUse(id, tc.Name, tc.input()))
	}
	return out
}

// input is the tool call's input JSON: RawInput verbatim, else Input
// marshalled (checked by Validate), else {}.
func (tc ToolCall) input() json.RawMessage {
	switch {
	case tc.RawInput != "":
		return json.RawMessage(tc.RawInput)
	case tc.Input != nil:
		// No HTML escaping: a command such as "a > b" must reach the
		// tool, the events and the person's terminal as written.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(tc.Input); err == nil {
			return bytes.TrimRight(buf.Bytes(), "\n")
		}
	}
	return json.RawMessage("{}")
}

// stop is the reply's stop reason with its default applied.
func (r *Reply) stop() llm.StopReason {
	switch {
	case r.Stop != "":
		return r.Stop
	case len(r.ToolCalls) > 0:
		return llm.ToolUseStop
	default:
		return llm.EndTurn
	}
}

// response is the reply as an llm.Response to req.
func (r *Reply) response(req *llm.Request, content []llm.Block) *llm.Response {
	return &llm.Response{
		Model:      "scripted",
		Content:    content,
		StopReason: r.stop(),
		Usage:      r.usage(req, content),
		Header:     http.Header{"Content-Type": {"application/json"}},
	}
}

// usage is the scripted usage, with zero counts estimated.
func (r *Reply) usage(req *llm.Request, content []llm.Block) llm.Usage {
	var u llm.Usage
	if r.Usage != nil {
		u = llm.Usage{InputTokens: r.Usage.Input, OutputTokens: r.Usage.Output}
	}
	if u.InputTokens == 0 {
		n := allTextLen(req)
		for _, t := range req.Tools {
			n += len(t.Name) + len(t.Description) + len(t.InputSchema)
		}
		u.InputTokens = estimate(n)
	}
	if u.OutputTokens == 0 {
		n := 0
		for _, b := range content {
			n += len(b.Text) + len(b.Name) + len(b.Input)
		}
		u.OutputTokens = estimate(n)
	}
	return u
}

// estimate is the usual rough rule: a token is about four characters.
func estimate(chars int) int64 {
	return max(1, int64((chars+3)/4))
}

// header is the fault's headers in canonical form.
func (r *Reply) header() http.Header {
	h := make(http.Header, len(r.Headers))
	for k, v := range r.Headers {
		h.Set(k, v)
	}
	return h
}

// errorBody is the fault's type, message and code with defaults chosen
// from the status, in the Anthropic vocabulary (the OpenAI transport keeps
// the same strings: llm.ClassifyStatus reads both).
func (r *Reply) errorBody() ErrorBody {
	var e ErrorBody
	if r.Error != nil {
		e = *r.Error
	}
	if e.Type == "" {
		e.Type = defaultErrorType(r.Status)
	}
	if e.Message == "" {
		e.Message = fmt.Sprintf("scripted %d %s", r.Status, http.StatusText(r.Status))
	}
	if e.Code == "" {
		e.Code = e.Type
	}
	return e
}

func defaultErrorType(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusPaymentRequired:
		return "billing_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestTimeout, http.StatusGatewayTimeout:
		return "timeout_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusServiceUnavailable, 529:
		return "overloaded_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}
