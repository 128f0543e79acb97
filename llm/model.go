package llm

import (
	"context"
	"net/http"
)

// StopReason is why the model stopped, mapped onto one set for every
// provider (Anthropic stop_reason, OpenAI finish_reason).
type StopReason string

const (
	// EndTurn: the model says it is done (Anthropic end_turn, OpenAI stop).
	EndTurn StopReason = "end_turn"
	// ToolUseStop: the model wants tools run (tool_use, tool_calls).
	ToolUseStop StopReason = "tool_use"
	// MaxTokens: the output was cut off (max_tokens, length).
	MaxTokens StopReason = "max_tokens"
	// StopSequence: a stop sequence was produced.
	StopSequence StopReason = "stop_sequence"
	// Refusal: the model or a content filter refused (refusal,
	// content_filter).
	Refusal StopReason = "refusal"
	// PauseTurn: the provider paused a long turn; it may be continued.
	PauseTurn StopReason = "pause_turn"
	// Unknown: anything else, including a missing reason.
	Unknown StopReason = "unknown"
)

// Usage counts tokens. InputTokens counts every prompt token, those read
// from or written to the provider's prompt cache included: all of them are
// billed and all count against rate limits. CacheWriteTokens and
// CacheReadTokens say how many of the InputTokens were cache writes and
// cache reads, which are priced differently (llm/models).
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	// CacheWriteTokens are prompt tokens written to the cache (Anthropic
	// cache_creation_input_tokens; OpenAI's Chat Completions reports none).
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	// CacheReadTokens are prompt tokens read from the cache (Anthropic
	// cache_read_input_tokens, OpenAI prompt_tokens_details.cached_tokens).
	CacheReadTokens int64 `json:"cache_read_tokens,omitempty"`
}

// Add returns the sum of two usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + v.InputTokens,
		OutputTokens:     u.OutputTokens + v.OutputTokens,
		CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
		CacheReadTokens:  u.CacheReadTokens + v.CacheReadTokens,
	}
}

// Total is input plus output tokens.
func (u Usage) Total() int64 { return u.InputTokens + u.OutputTokens }

// Uncached is the prompt tokens that were neither written to nor read from
// the cache: those billed at the plain input price.
func (u Usage) Uncached() int64 {
	return max(0, u.InputTokens-u.CacheWriteTokens-u.CacheReadTokens)
}

// Request is one model call.
type Request struct {
	// Model names the model; empty means the provider's configured default.
	Model string
	// System is the system prompt.
	System string
	// Messages is the conversation so far; the last one is the user's.
	Messages []Message
	// Tools the model may call.
	Tools []ToolSpec
	// MaxTokens caps the output; zero means the provider's default.
	MaxTokens int
	// NoCache turns prompt caching off for this call. By default it is
	// on: a provider that caches only where it is asked to (Anthropic)
	// is given cache breakpoints at the end of the tools and system
	// prompt and at the latest turns, so that a long conversation's
	// resent history is read from the cache, at about a tenth of the
	// input price. A provider that caches every long prompt by itself
	// (OpenAI) cannot be told not to; it is sent a byte-stable prefix
	// either way.
	NoCache bool
}

// Response is a model's reply.
type Response struct {
	// Model is the model that answered, as the provider reports it.
	Model      string
	Content    []Block
	StopReason StopReason
	Usage      Usage
	// Header holds the HTTP response headers when there were any (rate
	// limit headers are read from here by the pacing layer).
	Header http.Header
}

// Message returns the reply as an assistant message.
func (r *Response) Message() Message { return Message{Role: Assistant, Content: r.Content} }

// Model is a language model. Generate makes exactly one call: it never
// retries (the retry package is the one retry layer) and it returns a
// *Error for every provider failure, so callers can read its Class.
// Implementations are safe for concurrent use.
type Model interface {
	Generate(ctx context.Context, req *Request) (*Response, error)
}

// ModelFunc adapts a function to the Model interface.
type ModelFunc func(ctx context.Context, req *Request) (*Response, error)

// Generate calls f.
func (f ModelFunc) Generate(ctx context.Context, req *Request) (*Response, error) { return f(ctx, req) }
