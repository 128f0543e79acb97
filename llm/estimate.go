package llm

// CharsPerToken is the rough ratio of English text and JSON to tokens
// that every estimate made before a provider has counted uses: the
// budget's, the limiter's tokens-per-minute and compaction's.
const CharsPerToken = 4

// Chars counts the characters of what a request sends as its prompt: the
// system prompt, every message's text, tool calls and results, and the
// tools' specifications.
func (r *Request) Chars() int64 {
	if r == nil {
		return 0
	}
	n := int64(len(r.System))
	// By index: ranging by value copied every message and block, which
	// made a walk over a long history several times slower.
	for i := range r.Messages {
		n += r.Messages[i].Chars()
	}
	for _, t := range r.Tools {
		n += int64(len(t.Name) + len(t.Description) + len(t.InputSchema))
	}
	return n
}

// Chars counts the characters of a message's blocks: text, tool names
// and inputs, tool results.
func (m Message) Chars() int64 {
	n := 0
	for i := range m.Content {
		b := &m.Content[i]
		n += len(b.Text) + len(b.Input) + len(b.Name)
	}
	return int64(n)
}

// Tokens turns a count of characters into an estimate of tokens, at
// CharsPerToken, rounded up.
func Tokens(chars int64) int64 { return (chars + CharsPerToken - 1) / CharsPerToken }
