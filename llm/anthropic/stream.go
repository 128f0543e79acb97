package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/nightshift-dev/nightshift/llm"
)

// generateStream makes one streaming call of a prompt of about tokens
// tokens and accumulates its events into one reply.
func (c *Client) generateStream(ctx context.Context, call *call, tokens int64) (*llm.Response, error) {
	var res *http.Response
	var first time.Duration
	stream := c.sdk.Messages.NewStreaming(ctx, call.params, append(c.watchStall(tokens, &first),
		option.WithRequestBody("application/json", call.body), option.WithResponseInto(&res))...)
	defer stream.Close()
	var acc accumulator
	for stream.Next() {
		acc.add(stream.Current())
	}
	if err := stream.Err(); err != nil {
		return nil, c.fail(ctx, err, res)
	}
	if !acc.stopped {
		// The body ended cleanly but the message never did: the server or
		// a proxy closed the stream early. Resending may well succeed.
		e := &llm.Error{Provider: Provider, Class: llm.Connection,
			Message: "stream ended before message_stop"}
		if ctx.Err() != nil {
			e = c.fail(ctx, ctx.Err(), res)
		}
		if res != nil {
			e.Header = res.Header
		}
		return nil, e
	}
	out := acc.response()
	out.Header = res.Header
	// What the server read anew is what its first byte waited for.
	c.prefill.Observe(out.Usage.InputTokens-out.Usage.CacheReadTokens, first)
	return out, nil
}

// accumulator builds a reply from stream events. Unlike the SDK's own
// Message.Accumulate it keeps a tool call's input exactly as streamed, even
// when max_tokens cut it off mid-JSON: the agent decides what to do with a
// truncated call, and it cannot if the input was replaced by {}.
type accumulator struct {
	model      string
	usage      sdk.Usage
	stopReason sdk.StopReason
	blocks     []*streamBlock
	stopped    bool
}

// streamBlock is one content block being streamed. kind is "" for block
// types nightshift drops (thinking).
type streamBlock struct {
	kind     llm.BlockType
	id, name string
	text     strings.Builder
	input    strings.Builder
}

func (a *accumulator) add(ev sdk.MessageStreamEventUnion) {
	switch ev.Type {
	case "message_start":
		a.model = ev.Message.Model
		a.usage = ev.Message.Usage
	case "content_block_start":
		b := &streamBlock{}
		switch ev.ContentBlock.Type {
		case "text":
			b.kind = llm.TextBlock
			b.text.WriteString(ev.ContentBlock.Text)
		case "tool_use":
			b.kind = llm.ToolUseBlock
			b.id, b.name = ev.ContentBlock.ID, ev.ContentBlock.Name
		}
		a.blockAt(ev.Index, b)
	case "content_block_delta":
		b := a.blockAt(ev.Index, nil)
		switch ev.Delta.Type {
		case "text_delta":
			b.text.WriteString(ev.Delta.Text)
		case "input_json_delta":
			b.input.WriteString(ev.Delta.PartialJSON)
		}
	case "message_delta":
		a.stopReason = ev.Delta.StopReason
		// Usage in message_delta is cumulative: it replaces, never adds.
		a.usage.OutputTokens = ev.Usage.OutputTokens
		if ev.Usage.JSON.InputTokens.Valid() {
			a.usage.InputTokens = ev.Usage.InputTokens
		}
		if ev.Usage.JSON.CacheCreationInputTokens.Valid() {
			a.usage.CacheCreationInputTokens = ev.Usage.CacheCreationInputTokens
		}
		if ev.Usage.JSON.CacheReadInputTokens.Valid() {
			a.usage.CacheReadInputTokens = ev.Usage.CacheReadInputTokens
		}
	case "message_stop":
		a.stopped = true
	}
}

// blockAt returns the block at index i, first storing b there if given.
// Events for an index never started get a dropped block, so a server that
// skips a start cannot crash the accumulator.
func (a *accumulator) blockAt(i int64, b *streamBlock) *streamBlock {
	for int64(len(a.blocks)) <= i {
		a.blocks = append(a.blocks, &streamBlock{})
	}
	if b != nil {
		a.blocks[i] = b
	}
	return a.blocks[i]
}

func (a *accumulator) response() *llm.Response {
	r := &llm.Response{Model: a.model, StopReason: stopReason(a.stopReason), Usage: usage(a.usage)}
	for _, b := range a.blocks {
		switch b.kind {
		case llm.TextBlock:
			r.Content = append(r.Content, llm.Text(b.text.String()))
		case llm.ToolUseBlock:
			input := b.input.String()
			if input == "" {
				// A tool called without arguments streams no deltas.
				input = "{}"
			}
			r.Content = append(r.Content, llm.ToolUse(b.id, b.name, json.RawMessage(input)))
		}
	}
	return r
}
