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

// reply is the part of a message that response reads, decoded by
// encoding/json: the SDK's own decoder (gjson plus reflection, keeping
// every field's raw JSON and its validity) cost a step of a long run more
// than anything else the harness did in its place (issue 15). A reply
// this cannot decode (a field of a type it does not expect) is decoded by
// the SDK's type, as before, and the two are held to the same answer by
// TestReplyAnswersAsTheSDKType.
type reply struct {
	Model      string         `json:"model"`
	StopReason sdk.StopReason `json:"stop_reason"`
	Content    []struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content"`
	Usage struct {
		InputTokens              int64 `json:"input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// decodeReply decodes a whole reply's body, by reply when it can, else
// by the SDK's type.
func decodeReply(body []byte) (*llm.Response, error) {
	var fast reply
	if json.Unmarshal(body, &fast) == nil {
		return fast.response(), nil
	}
	var m sdk.Message
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	return response(&m), nil
}

// response maps a reply as response maps the SDK's type.
func (m *reply) response() *llm.Response {
	u := sdk.Usage{
		InputTokens:              m.Usage.InputTokens,
		OutputTokens:             m.Usage.OutputTokens,
		CacheCreationInputTokens: m.Usage.CacheCreationInputTokens,
		CacheReadInputTokens:     m.Usage.CacheReadInputTokens,
	}
	r := &llm.Response{Model: m.Model, StopReason: stopReason(m.StopReason), Usage: usage(u)}
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			r.Content = append(r.Content, llm.Text(b.Text))
		case "tool_use":
			// The decoder made Input a copy of its own; null is none, as
			// the SDK reads it.
			in := b.Input
			if string(in) == "null" {
				in = nil
			}
			r.Content = append(r.Content, llm.ToolUse(b.ID, b.Name, in))
		}
	}
	return r
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
