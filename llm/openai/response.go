package openai

import (
	"encoding/json"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"

	"github.com/nightshift-dev/nightshift/llm"
)

// stopReason maps a finish_reason onto llm's set. hasToolCalls covers
// compatible servers (some Ollama versions) that finish a turn of tool
// calls with "stop" or with no reason at all.
func stopReason(reason string, hasToolCalls, refused bool) llm.StopReason {
	switch reason {
	case "tool_calls", "function_call":
		return llm.ToolUseStop
	case "length":
		return llm.MaxTokens
	case "content_filter":
		return llm.Refusal
	}
	switch {
	case hasToolCalls && (reason == "stop" || reason == ""):
		return llm.ToolUseStop
	case refused:
		// The model declined: OpenAI says so in message.refusal and
		// finishes with "stop".
		return llm.Refusal
	case reason == "stop":
		return llm.EndTurn
	}
	return llm.Unknown
}

// usage reads prompt and completion tokens; a server that reports none
// gives zeros. prompt_tokens already counts the cached tokens, which
// prompt_tokens_details.cached_tokens names; Chat Completions reports no
// cache writes.
func usage(u sdk.CompletionUsage) llm.Usage {
	return llm.Usage{
		InputTokens:     u.PromptTokens,
		OutputTokens:    u.CompletionTokens,
		CacheReadTokens: u.PromptTokensDetails.CachedTokens,
	}
}

// arguments returns a tool call's input as raw JSON. OpenAI sends it as a
// string of JSON, kept as written even when cut off; some compatible
// servers send the object itself, which is taken as it is.
func arguments(s string, field respjson.Field) json.RawMessage {
	return argumentsRaw(s, field.Raw())
}

// argumentsRaw is arguments, given the field's raw JSON.
func argumentsRaw(s, raw string) json.RawMessage {
	if raw := strings.TrimSpace(raw); strings.HasPrefix(raw, "{") {
		return json.RawMessage(raw)
	}
	if strings.TrimSpace(s) == "" {
		return json.RawMessage(`{}`)
	}
	return json.RawMessage(s)
}

// reply is the part of a chat completion that response reads, decoded by
// encoding/json: the SDK's own decoder (gjson plus reflection, keeping
// every field's raw JSON and its validity) cost a step of a long run more
// than anything else the harness did in its place, 26 µs of 140 at
// BenchmarkStepCost's step 10, and more in allocations (issue 15). A reply
// this cannot decode (a field of a type it does not expect, as a
// compatible server may send) is decoded by the SDK's type, as before, and
// the two are held to the same answer by TestReplyAnswersAsTheSDKType.
type reply struct {
	Model   string `json:"model"`
	Choices []struct {
		FinishReason string `json:"finish_reason"`
		Message      struct {
			Content   string `json:"content"`
			Refusal   string `json:"refusal"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name string `json:"name"`
					// Arguments is a string of JSON, or, from some
					// compatible servers, the object itself.
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens        int64 `json:"prompt_tokens"`
		CompletionTokens    int64 `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

// decodeReply decodes a whole reply's body into r, by reply when it
// can, else by the SDK's type. ok is false when the reply has no choice.
func decodeReply(body []byte) (r *llm.Response, ok bool, err error) {
	var fast reply
	if json.Unmarshal(body, &fast) == nil {
		if len(fast.Choices) == 0 {
			return nil, false, nil
		}
		return fast.response(), true, nil
	}
	var cc sdk.ChatCompletion
	if err := json.Unmarshal(body, &cc); err != nil {
		return nil, false, err
	}
	if len(cc.Choices) == 0 {
		return nil, false, nil
	}
	return response(&cc), true, nil
}

// response maps a reply as response maps the SDK's type.
func (cc *reply) response() *llm.Response {
	r := &llm.Response{Model: cc.Model, Usage: llm.Usage{
		InputTokens:     cc.Usage.PromptTokens,
		OutputTokens:    cc.Usage.CompletionTokens,
		CacheReadTokens: cc.Usage.PromptTokensDetails.CachedTokens,
	}}
	ch := &cc.Choices[0]
	msg := &ch.Message
	if msg.Content != "" {
		r.Content = append(r.Content, llm.Text(msg.Content))
	}
	if msg.Refusal != "" {
		r.Content = append(r.Content, llm.Text(msg.Refusal))
	}
	for _, tc := range msg.ToolCalls {
		// As the SDK reads it: a string's value, nothing for null, and
		// any other JSON as written.
		raw := tc.Function.Arguments
		var s string
		switch {
		case len(raw) > 0 && raw[0] == '"':
			json.Unmarshal(raw, &s) //nolint:errcheck // a JSON string, checked by the decoder
		case string(raw) != "null":
			s = string(raw)
		}
		r.Content = append(r.Content, llm.ToolUse(callID(tc.ID), tc.Function.Name, argumentsRaw(s, string(raw))))
	}
	r.StopReason = stopReason(ch.FinishReason, len(msg.ToolCalls) > 0, msg.Refusal != "")
	return r
}

// response maps a whole reply: the first choice only (nightshift never
// asks for more than one).
func response(cc *sdk.ChatCompletion) *llm.Response {
	r := &llm.Response{Model: cc.Model, Usage: usage(cc.Usage)}
	ch := cc.Choices[0]
	msg := ch.Message
	if msg.Content != "" {
		r.Content = append(r.Content, llm.Text(msg.Content))
	}
	if msg.Refusal != "" {
		r.Content = append(r.Content, llm.Text(msg.Refusal))
	}
	for _, tc := range msg.ToolCalls {
		r.Content = append(r.Content, llm.ToolUse(callID(tc.ID), tc.Function.Name, arguments(tc.Function.Arguments, tc.Function.JSON.Arguments)))
	}
	r.StopReason = stopReason(ch.FinishReason, len(msg.ToolCalls) > 0, msg.Refusal != "")
	return r
}
