package scripted

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/classify"
)

// content builds the reply's content blocks. Tool-use IDs not given are
// made by id (1, 2, ... in the reply), skipping any the scenario set itself,
// so IDs are unique within the reply.
func (r *Reply) content(id func(n int) string) []llm.Block {
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
		tid := tc.ID
		for tid == "" || (tc.ID == "" && used[tid]) {
			n++
			tid = id(n)
		}
		used[tid] = true
		out = append(out, llm.ToolUse(tid, tc.Name, tc.input()))
	}
	if r.Markup != "" {
		out = inMarkup(out, r.Markup)
	}
	if r.Cut > 0 {
		out = cutContent(out, r.Cut)
	}
	return out
}

// localID is the in-process model's tool-use ID: toolu_<n>, readable in
// tests; over HTTP each wire makes IDs in its provider's shape.
func localID(n int) string { return fmt.Sprintf("toolu_%d", n) }

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
	case r.Cut > 0:
		return llm.MaxTokens
	case r.Markup != "":
		return llm.EndTurn
	case len(r.ToolCalls) > 0:
		return llm.ToolUseStop
	default:
		return llm.EndTurn
	}
}

// response is the reply as an llm.Response to req.
func (r *Reply) response(model string, p *prompt, cache func() cacheUse, content []llm.Block) *llm.Response {
	return &llm.Response{
		// The model asked is the model that answers, as the server
		// echoes it.
		Model:      cmp.Or(model, "scripted"),
		Content:    content,
		StopReason: r.stop(),
		Usage:      r.usage(p, cache, content),
		Header:     http.Header{"Content-Type": {"application/json"}},
	}
}

// promptTokens is the prompt's size as the reply reports it: the
// scenario's input count, else the prompt's.
func (r *Reply) promptTokens(p *prompt) int64 {
	if r.Usage != nil && r.Usage.Input > 0 {
		return r.Usage.Input
	}
	return p.tokens()
}

// usage is the scripted usage, with zero counts estimated: the input as
// the prompt's size, and, when the scenario gives neither the input nor
// the cache's counts, the cache's as what cache (the simulator's prompt
// cache, consulted only then) did. Cache writes and reads are part of the
// input, as in llm.Usage.
func (r *Reply) usage(p *prompt, cache func() cacheUse, content []llm.Block) llm.Usage {
	var u llm.Usage
	if r.Usage != nil {
		u = llm.Usage{InputTokens: r.Usage.Input, OutputTokens: r.Usage.Output,
			CacheWriteTokens: r.Usage.CacheWrite, CacheReadTokens: r.Usage.CacheRead}
	}
	if u.InputTokens == 0 {
		if u.CacheWriteTokens == 0 && u.CacheReadTokens == 0 && cache != nil {
			use := cache()
			u.CacheWriteTokens, u.CacheReadTokens = use.write, use.read
		}
		u.InputTokens = max(p.tokens(), u.CacheWriteTokens+u.CacheReadTokens)
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

// errorBody is the fault's type, message and code with the defaults of
// wire, chosen from the status: each provider's own vocabulary, so a client
// that reads the type or code sees what that API sends. The in-process
// model uses Anthropic's names.
func (r *Reply) errorBody(w wire) ErrorBody {
	var e ErrorBody
	if r.Error != nil {
		e = *r.Error
	}
	return e.withDefaults(r.Status, w)
}

// streamErrorBody is the stream_error's body with the defaults of wire:
// the wire's overload (Anthropic overloaded_error, OpenAI server_error).
func (r *Reply) streamErrorBody(w wire) ErrorBody {
	status := 529
	if w == wireOpenAI {
		status = http.StatusServiceUnavailable
	}
	return r.StreamError.withDefaults(status, w)
}

// streamErrorStatus is the status a non-streaming request gets for a
// stream_error: the one its type stands for before a stream starts.
func streamErrorStatus(e ErrorBody) int {
	return classify.StreamStatus(classify.Detail{Type: e.Type, Code: e.Code, Message: e.Message})
}

// withDefaults fills what the scenario left out of e for an error of
// status on wire w.
func (e ErrorBody) withDefaults(status int, w wire) ErrorBody {
	var d ErrorBody
	if w == wireOpenAI {
		d = openaiDefaultError(status)
	} else {
		d = ErrorBody{Type: anthropicErrorType(status)}
	}
	switch {
	case e.Type == "":
		e.Type = d.Type
		e.Code = cmp.Or(e.Code, d.Code)
	case w == wireOpenAI && e.Code == "" && e.Type == "insufficient_quota":
		// OpenAI's quota refusal says so in its type and its code alike.
		e.Code = e.Type
	}
	if e.Message == "" {
		e.Message = cmp.Or(d.Message, fmt.Sprintf("scripted %d %s", status, http.StatusText(status)))
	}
	return e
}

// anthropicErrorType is the Messages API's error type for a status
// (https://docs.claude.com/en/api/errors).
func anthropicErrorType(status int) string {
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

// openaiDefaultError is the Chat Completions API's type, code and message
// for a status, as its error-codes guide shows them: a 401 is type
// invalid_request_error with code invalid_api_key, a 429 is type requests
// with code rate_limit_exceeded, a 5xx is a server_error without a code.
func openaiDefaultError(status int) ErrorBody {
	switch status {
	case http.StatusUnauthorized:
		return ErrorBody{Type: "invalid_request_error", Code: "invalid_api_key",
			Message: "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys."}
	case http.StatusPaymentRequired:
		return ErrorBody{Type: "insufficient_quota", Code: "insufficient_quota",
			Message: "You exceeded your current quota, please check your plan and billing details."}
	case http.StatusForbidden:
		return ErrorBody{Type: "invalid_request_error", Code: "unsupported_country_region_territory",
			Message: "Country, region, or territory not supported"}
	case http.StatusNotFound:
		return ErrorBody{Type: "invalid_request_error", Code: "model_not_found",
			Message: "The model does not exist or you do not have access to it."}
	case http.StatusTooManyRequests:
		return ErrorBody{Type: "requests", Code: "rate_limit_exceeded",
			Message: "Rate limit reached for requests. Please try again later."}
	case http.StatusInternalServerError:
		return ErrorBody{Type: "server_error", Message: "The server had an error while processing your request. Sorry about that!"}
	case http.StatusServiceUnavailable, 529:
		return ErrorBody{Type: "server_error", Message: "The server is overloaded or not ready yet."}
	}
	if status >= 500 {
		return ErrorBody{Type: "server_error"}
	}
	return ErrorBody{Type: "invalid_request_error"}
}
