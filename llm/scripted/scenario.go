package scripted

import (
	"regexp"
	"time"

	"github.com/nightshift-dev/nightshift/llm"
)

// Scenario is a parsed script of replies and faults. Build one with Parse or
// Load; a Scenario built in Go must pass Validate before it is played.
type Scenario struct {
	// Name is a label for logs; optional.
	Name string `yaml:"name"`
	// Loop says what happens after a script's last turn: false (the
	// default) answers with a bad-request error "scenario exhausted";
	// true repeats the last turn for ever.
	Loop bool `yaml:"loop"`
	// Scripts are tried in order; the first whose When matches the request
	// plays it.
	Scripts []Script `yaml:"scripts"`
	// Turns is shorthand for a single script named "main". Validate moves
	// them into Scripts.
	Turns []Turn `yaml:"turns"`
	// Server, when set, makes the simulator answer as a local model
	// server does (llama.cpp, vLLM, Ollama, LM Studio): its window, its
	// overflow error, its endpoints (local.go). Default: none.
	Server *LocalServer `yaml:"server"`
	// Down, when set, is an outage: after some calls, every model call
	// is refused for a span (outage.go). Default: none.
	Down *Down `yaml:"down"`

	validated bool
}

// Script is one sequence of turns, chosen by matching the request.
type Script struct {
	// Name appears in errors and logs; defaults to "main" for the
	// shorthand form and "script<N>" (1-based) otherwise.
	Name string `yaml:"name"`
	// When selects the requests this script plays; nil matches anything.
	When *Match `yaml:"when"`
	// Turns are indexed by position: the number of assistant messages the
	// request already holds.
	Turns []Turn `yaml:"turns"`
}

// Turn is what the model does at one position of a conversation: exactly one
// of an inline Reply, a list of Attempts, or a list of Cases.
type Turn struct {
	// Reply is the inline form: the same reply on every attempt.
	Reply `yaml:",inline"`
	// Attempts are successive replies to the same request at this
	// position (a retried call, a regeneration); the last one repeats.
	Attempts []Reply `yaml:"attempts"`
	// Cases are tried in order; the first whose When matches is played.
	Cases []Case `yaml:"cases"`
}

// Case is one branch of a turn: a match and what to answer when it holds.
type Case struct {
	// When selects the requests of this case; nil is the default case.
	When *Match `yaml:"when"`
	// Reply is the inline form of the answer.
	Reply `yaml:",inline"`
	// Attempts are successive answers, as in Turn.
	Attempts []Reply `yaml:"attempts"`
}

// Reply is one attempt's answer: content (Text, ToolCalls, Empty) or a fault
// (Status, Drop), optionally after a Delay.
type Reply struct {
	// Text is the reply's text.
	Text string `yaml:"text"`
	// ToolCalls are the tools the model asks for, in order.
	ToolCalls []ToolCall `yaml:"tool_calls"`
	// Stop is the stop reason; default tool_use when there are tool calls,
	// else end_turn. One of end_turn, tool_use, max_tokens, refusal,
	// stop_sequence.
	Stop llm.StopReason `yaml:"stop"`
	// Empty is a reply with no content at all (stop end_turn): the silent
	// failure of an empty answer.
	Empty bool `yaml:"empty"`
	// Usage overrides the token counts; a zero count is estimated as about
	// a quarter of the characters (at least 1).
	Usage *Usage `yaml:"usage"`

	// Status makes the reply an HTTP error with this status (400-599).
	Status int `yaml:"status"`
	// Headers are sent with the error (retry-after, retry-after-ms, ...).
	Headers map[string]string `yaml:"headers"`
	// Error is the error body; its type and message default from Status.
	Error *ErrorBody `yaml:"error"`
	// Drop makes the connection drop mid-reply. Over HTTP a streaming reply
	// sends its first events (including the start of Text) first.
	Drop bool `yaml:"drop"`
	// StreamError ends a streaming reply with an error event after its
	// first events, as a provider that fails mid-stream does (Anthropic's
	// event: error, OpenAI's data: {"error": ...}); its type and message
	// default as an overload's. A non-streaming request gets the error
	// status the type stands for (overloaded_error 529, server_error 500,
	// ...), and the in-process model the error a streaming provider
	// reports: no status, classified by the type.
	StreamError *ErrorBody `yaml:"stream_error"`
	// Delay is waited before answering, on the configured clock; a
	// cancelled context ends the wait.
	Delay time.Duration `yaml:"delay"`
	// Markup writes the reply's tool calls into its text in a chat
	// template's raw markup (qwen, mistral, phi, llama), as a server
	// that did not parse them sends them, instead of as tool calls.
	Markup string `yaml:"markup"`
	// Cut cuts the reply's content after this many characters (its
	// text, its markup, then each tool call's name and input), and it
	// stops max_tokens unless Stop says otherwise: a tool call cut
	// before its name is complete is dropped, one cut in its input keeps
	// the input's start. Default 0: not cut.
	Cut int `yaml:"cut"`
}

// ToolCall is one tool use in a reply.
type ToolCall struct {
	// ID is the tool-use ID. Default: a fresh ID in the shape of the wire
	// it is sent on (toolu_ and 24 characters on the Anthropic wire,
	// call_ and 24 on the OpenAI wire, unique in the process), and
	// toolu_<n>, unique within the reply, in process.
	ID string `yaml:"id"`
	// Name is the tool's name; it need not be a tool the request offered
	// (an invented tool is a failure worth scripting).
	Name string `yaml:"name"`
	// Input is any YAML value, sent as JSON; default {}.
	Input any `yaml:"input"`
	// RawInput is sent as the input's JSON text verbatim, so it may be
	// broken JSON (a reply cut off mid-argument). It excludes Input.
	RawInput string `yaml:"raw_input"`
}

// Usage is a reply's token counts.
type Usage struct {
	// Input counts every prompt token, the cached ones included.
	Input int64 `yaml:"input"`
	// Output counts the output tokens.
	Output int64 `yaml:"output"`
	// CacheWrite and CacheRead are the part of Input written to and read
	// from the prompt cache. The OpenAI wire carries only CacheRead
	// (prompt_tokens_details.cached_tokens).
	CacheWrite int64 `yaml:"cache_write"`
	CacheRead  int64 `yaml:"cache_read"`
}

// ErrorBody is the body of a scripted error reply.
type ErrorBody struct {
	// Type is the provider error type, sent as written. Default: the type
	// the wire's API gives the status (Anthropic rate_limit_error,
	// overloaded_error, ...; OpenAI requests, invalid_request_error,
	// server_error, ...).
	Type string `yaml:"type"`
	// Message defaults to the wire's message for the status, or a short
	// text naming it.
	Message string `yaml:"message"`
	// Code is the OpenAI error code (rate_limit_exceeded,
	// invalid_api_key, insufficient_quota, ...). Default: the status's
	// when Type is defaulted too, else none (null), except that
	// insufficient_quota is its own code.
	Code string `yaml:"code"`
	// Param is the OpenAI error's param; default none (null).
	Param string `yaml:"param"`
}

// Match is a condition on a request's text. All its parts must hold.
type Match struct {
	// Contains: every string must appear.
	Contains Strings `yaml:"contains"`
	// NotContains: no string may appear.
	NotContains Strings `yaml:"not_contains"`
	// Matches is a Go regular expression that must match.
	Matches string `yaml:"matches"`
	// In says what text is searched: "all" (default: the system prompt and
	// every message's text, tool inputs and tool results), "last" (the last
	// user message only) or "system" (the system prompt).
	In string `yaml:"in"`

	re *regexp.Regexp
}
