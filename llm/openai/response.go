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
	if raw := strings.TrimSpace(field.Raw()); strings.HasPrefix(raw, "{") {
		return json.RawMessage(raw)
	}
	if strings.TrimSpace(s) == "" {
		return json.RawMessage(`{}`)
	}
	return json.RawMessage(s)
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
