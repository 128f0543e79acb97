package budget

import "github.com/nightshift-dev/nightshift/llm"

// charsPerToken is the usual rough ratio of English text and JSON, used
// until a call of the model has said how many tokens its prompt was.
const charsPerToken = 4

// Estimator estimates the usage of a model's next call from its request
// and the calls of the same model so far. The zero value is ready.
type Estimator struct {
	calls int64
	// The previous call: its prompt's characters and its usage.
	lastChars int64
	last      llm.Usage
	outputs   int64
}

// Estimate returns the likely usage of req: its prompt is the previous
// call's prompt tokens plus the characters added since at four a token
// (the first call: all its characters at four a token), read from the
// cache as far as the previous call's prompt reached when that call used
// the cache; its output is the model's average output so far.
func (e *Estimator) Estimate(req *llm.Request) llm.Usage {
	chars := Chars(req)
	in := (chars + charsPerToken - 1) / charsPerToken
	if e.calls > 0 && chars >= e.lastChars {
		in = e.last.InputTokens + (chars-e.lastChars+charsPerToken-1)/charsPerToken
	}
	u := llm.Usage{InputTokens: in}
	if e.calls > 0 {
		u.OutputTokens = e.outputs / e.calls
		if e.last.CacheReadTokens+e.last.CacheWriteTokens > 0 {
			u.CacheReadTokens = min(e.last.InputTokens, in)
		}
	}
	return u
}

// Observe records the usage of a call made with req.
func (e *Estimator) Observe(req *llm.Request, u llm.Usage) {
	e.calls++
	e.lastChars = Chars(req)
	e.last = u
	e.outputs += u.OutputTokens
}

// Chars counts the characters of what a request sends as its prompt: the
// system prompt, every message's text, tool calls and results, and the
// tools' specifications.
func Chars(req *llm.Request) int64 {
	if req == nil {
		return 0
	}
	n := len(req.System)
	for _, m := range req.Messages {
		for _, b := range m.Content {
			n += len(b.Text) + len(b.Input) + len(b.Name)
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.InputSchema)
	}
	return int64(n)
}
