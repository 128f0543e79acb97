package anthropic

import (
	"encoding/json"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/nightshift-dev/nightshift/llm"
)

// stopReason maps Anthropic's stop_reason onto llm's set.
func stopReason(r sdk.StopReason) llm.StopReason {
	switch r {
	case sdk.StopReasonEndTurn:
		return llm.EndTurn
	case sdk.StopReasonToolUse:
		return llm.ToolUseStop
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		// Both cut the reply off before the model finished; the second
		// because the context window, not the cap, ran out.
		return llm.MaxTokens
	case sdk.StopReasonStopSequence:
		return llm.StopSequence
	case sdk.StopReasonPauseTurn:
		return llm.PauseTurn
	case sdk.StopReasonRefusal:
		return llm.Refusal
	}
	return llm.Unknown
}

// usage reports every prompt token as input: tokens read from or written
// to the prompt cache are billed and count against rate limits too. The
// API's input_tokens counts only the uncached ones, so the three are added;
// the cache's share is kept apart for pricing.
func usage(u sdk.Usage) llm.Usage {
	return llm.Usage{
		InputTokens:      u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens,
		OutputTokens:     u.OutputTokens,
		CacheWriteTokens: u.CacheCreationInputTokens,
		CacheReadTokens:  u.CacheReadInputTokens,
	}
}

// block maps one reply content block; kinds nightshift does not use
// (thinking, server tools) are dropped.
func block(b sdk.ContentBlockUnion) (llm.Block, bool) {
	switch b.Type {
	case "text":
		return llm.Text(b.Text), true
	case "tool_use":
		return llm.ToolUse(b.ID, b.Name, cloneRaw(b.Input)), true
	}
	return llm.Block{}, false
}

func cloneRaw(r json.RawMessage) json.RawMessage {
	if r == nil {
		return nil
	}
	return append(json.RawMessage(nil), r...)
}

// response maps a whole reply.
func response(m *sdk.Message) *llm.Response {
	r := &llm.Response{
		Model:      m.Model,
		StopReason: stopReason(m.StopReason),
		Usage:      usage(m.Usage),
	}
	for _, b := range m.Content {
		if lb, ok := block(b); ok {
			r.Content = append(r.Content, lb)
		}
	}
	return r
}
