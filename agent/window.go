package agent

import (
	"errors"
	"fmt"

	"github.com/nightshift-dev/nightshift/llm"
)

// The context window, read as the server means it (issue 28). A local
// server runs a model with the window it was started with (llama-server
// -c 512), and says that the window is full in two ways: it refuses a
// prompt that does not fit (an overflow error, llm.ContextOverflow), and
// it stops a reply that reaches the window with the same finish_reason as
// one that reached max_tokens ("length"). Neither is helped by a larger
// output cap; both are helped by a smaller prompt, which is what
// compaction makes. When compaction cannot make room, the run ends
// context-full, naming the window.

// ErrContextFull matches the Err of a run that ended context-full.
var ErrContextFull = errors.New("agent: the context window is full")

// ContextFullError is the Err of a run that ended context-full: the
// window and what filled it.
type ContextFullError struct {
	// Window is the context window, in tokens.
	Window int
	// Prompt is the prompt that filled it, in tokens, as the server
	// counted it (or as estimated when it did not say).
	Prompt int64
}

func (e *ContextFullError) Error() string {
	return fmt.Sprintf("the context window of %d tokens is full (a prompt of %d tokens)", e.Window, e.Prompt)
}

// Is makes errors.Is(err, ErrContextFull) true.
func (e *ContextFullError) Is(target error) bool { return target == ErrContextFull }

// fullSlack is the share of the window a reply may stop short of and
// still have stopped at it: servers stop at the window exactly (llama.cpp:
// 416 + 96 = 512) or a few tokens before.
const fullSlack = 0.05

// fullWindow reports whether a reply that stopped at max_tokens stopped
// at the context window instead: its prompt and output reached the
// window (llama.cpp: 416 + 96 = 512 with max_tokens 4096 far off), or it
// reached a cap that the window had lowered (room). Either way a larger
// cap cannot help. With no window known, a max_tokens stop is a cut.
func (r *run) fullWindow(resp *llm.Response, limit int) bool {
	if resp.StopReason != llm.MaxTokens || r.window <= 0 {
		return false
	}
	u := resp.Usage
	if u.InputTokens <= 0 {
		return false // a server that counts nothing says nothing of its window
	}
	if float64(u.InputTokens+u.OutputTokens) >= (1-fullSlack)*float64(r.window) {
		return true
	}
	return limit > 0 && limit < r.maxTok && u.OutputTokens >= int64(limit)
}

// learnWindow takes a window the server showed (an overflow error's, a
// reply's that stopped at it) when it is smaller than the one the run
// had, or the run had none.
func (r *run) learnWindow(n int) {
	if n > 0 && (r.window <= 0 || n < r.window) {
		r.window = n
	}
}

// overflowed learns what an overflow error says: its window, or when it
// names none, that the prompt sent was too big for it.
func (r *run) overflowed(err error, prompt int64) int64 {
	var e *llm.Error
	if errors.As(err, &e) {
		r.learnWindow(e.Window)
		if e.PromptTokens > 0 {
			prompt = int64(e.PromptTokens)
		}
	}
	if r.window <= 0 {
		// The window is smaller than the prompt refused: compact as if
		// the prompt had filled it.
		r.learnWindow(int(prompt))
	}
	return prompt
}

// contextFull ends the run: the window is full and compaction could not
// make room.
func (r *run) contextFull(prompt int64, how string) *Result {
	err := &ContextFullError{Window: r.window, Prompt: prompt}
	return r.end(ContextFull, fmt.Sprintf("the context window of %d tokens is full: %s, and compaction could not make room (raise the server's window, or give --context-window if it is wrong)", r.window, how), err)
}

// calibration is what the server counted of the last worker call's
// prompt: its characters (llm.Request.Chars) and its prompt tokens.
type calibration struct {
	chars, tokens int64
}

// promptTokens estimates the prompt of a worker request of chars
// characters as the server counts it: the last call's prompt tokens, as
// the server reported them, plus the characters added since (or less
// those dropped), at llm.CharsPerToken. The system prompt and the tools
// are the same from call to call, so what the server does with them (a
// chat template that drops the tools counts none of their schemas) is in
// the count it reported; only the messages differ, and those it counts.
// Before any call has been counted, every character counts.
func (r *run) promptTokens(chars int64) int64 {
	c := r.calib
	if c.tokens <= 0 {
		return llm.Tokens(chars)
	}
	if d := chars - c.chars; d >= 0 {
		return c.tokens + llm.Tokens(d)
	}
	return max(1, c.tokens-llm.Tokens(c.chars-chars))
}

// calibrate calibrates the estimate on a call's reported usage.
func (r *run) calibrate(chars int64, u llm.Usage) {
	if u.InputTokens > 0 {
		r.calib = calibration{chars: chars, tokens: u.InputTokens}
	}
}

// room is the output cap a call of an estimated prompt may be given: its
// cap, or what the window leaves of it when that is less (a server that
// refuses a prompt and cap over the window, as vLLM does, would refuse
// every call of a small window otherwise). At least one token: a reply
// that then stops at the window says it is full.
func (r *run) room(limit int, prompt int64) int {
	if r.window <= 0 || limit <= 0 {
		return limit
	}
	if left := int64(r.window) - prompt; left < int64(limit) {
		return int(max(left, 1))
	}
	return limit
}
