package budget

import "github.com/nightshift-dev/nightshift/llm"

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
func (e *Estimator) Estimate(req *llm.Request) llm.Usage { return e.EstimateChars(req.Chars()) }

// EstimateChars is Estimate for a request of chars characters
// (llm.Request.Chars), for a caller that has counted them already:
// counting walks the whole conversation, which at step 200 of a run is
// most of what an estimate costs.
func (e *Estimator) EstimateChars(chars int64) llm.Usage {
	// Until a call of the model has said how many tokens its prompt was,
	// every character counts at llm.CharsPerToken.
	in := llm.Tokens(chars)
	if e.calls > 0 && chars >= e.lastChars {
		in = e.last.InputTokens + llm.Tokens(chars-e.lastChars)
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
func (e *Estimator) Observe(req *llm.Request, u llm.Usage) { e.ObserveChars(req.Chars(), u) }

// ObserveChars is Observe for a request of chars characters
// (llm.Request.Chars).
func (e *Estimator) ObserveChars(chars int64, u llm.Usage) {
	e.calls++
	e.lastChars = chars
	e.last = u
	e.outputs += u.OutputTokens
}
