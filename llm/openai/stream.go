package openai

import (
	"context"
	"net/http"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/nightshift-dev/nightshift/llm"
)

// generateStream makes one streaming call of a prompt of about tokens
// tokens and accumulates its chunks into one reply.
func (c *Client) generateStream(ctx context.Context, call *call, tokens int64) (*llm.Response, error) {
	var res *http.Response
	var first time.Duration
	stream := c.sdk.Chat.Completions.NewStreaming(ctx, call.params, append(c.watchStall(tokens, &first),
		option.WithRequestBody("application/json", call.body), option.WithResponseInto(&res))...)
	defer stream.Close()
	var acc accumulator
	for stream.Next() {
		acc.add(stream.Current())
	}
	if err := stream.Err(); err != nil {
		return nil, c.fail(ctx, err, res)
	}
	if !acc.finished {
		// The body ended without any finish_reason: the server or a proxy
		// closed the stream early. Resending may well succeed.
		if ctx.Err() != nil {
			return nil, c.fail(ctx, ctx.Err(), res)
		}
		e := &llm.Error{Provider: Provider, Class: llm.Connection, Message: "stream ended before a finish_reason"}
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

// accumulator builds a reply from chunks of the first choice. Tool calls
// are assembled by their index, in the order they first appear, and their
// arguments are kept exactly as streamed, even when cut off.
type accumulator struct {
	model    string
	text     strings.Builder
	refusal  strings.Builder
	calls    []*streamCall
	reason   string
	finished bool
	usage    sdk.CompletionUsage
}

type streamCall struct {
	index    int64
	id, name string
	args     strings.Builder
}

func (a *accumulator) add(ch sdk.ChatCompletionChunk) {
	if ch.Model != "" {
		a.model = ch.Model
	}
	if ch.JSON.Usage.Valid() {
		// With include_usage the totals come in a last chunk that has no
		// choices; a server that sends usage on every chunk sends totals.
		a.usage = ch.Usage
	}
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue
		}
		d := choice.Delta
		a.text.WriteString(d.Content)
		a.refusal.WriteString(d.Refusal)
		for _, tc := range d.ToolCalls {
			call := a.call(tc.Index, tc.ID)
			if tc.ID != "" {
				call.id = tc.ID
			}
			if tc.Function.Name != "" {
				call.name = tc.Function.Name
			}
			call.args.WriteString(tc.Function.Arguments)
		}
		if choice.FinishReason != "" {
			a.reason = choice.FinishReason
			a.finished = true
		}
	}
}

// call returns the call being streamed at index. A delta carrying a new
// id at an index already in use starts another call: some compatible
// servers send each whole call in one chunk, all at index 0.
func (a *accumulator) call(index int64, id string) *streamCall {
	for i := len(a.calls) - 1; i >= 0; i-- {
		c := a.calls[i]
		if c.index != index {
			continue
		}
		if id == "" || c.id == "" || c.id == id {
			return c
		}
		break
	}
	c := &streamCall{index: index}
	a.calls = append(a.calls, c)
	return c
}

func (a *accumulator) response() *llm.Response {
	r := &llm.Response{Model: a.model, Usage: usage(a.usage)}
	if a.text.Len() > 0 {
		r.Content = append(r.Content, llm.Text(a.text.String()))
	}
	if a.refusal.Len() > 0 {
		r.Content = append(r.Content, llm.Text(a.refusal.String()))
	}
	for _, c := range a.calls {
		args := c.args.String()
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		r.Content = append(r.Content, llm.ToolUse(callID(c.id), c.name, []byte(args)))
	}
	r.StopReason = stopReason(a.reason, len(a.calls) > 0, a.refusal.Len() > 0)
	return r
}
