package llm

import (
	"strconv"
	"strings"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
)

// overflowMarkers are the error types and message fragments with which
// servers refuse a prompt that does not fit the model's context window,
// lower-cased:
//
//	llama.cpp  400 type exceed_context_size_error, "request (1210 tokens) exceeds the available context size (512 tokens), try increasing it"
//	vLLM       400 "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (…)"
//	OpenAI     400 code context_length_exceeded, "This model's maximum context length is 128000 tokens. …"
//	LM Studio  "Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, …"
//	Ollama     "the input length exceeds the context length"
//	Anthropic  400 "prompt is too long: 210000 tokens > 200000 maximum"
var overflowMarkers = []string{
	"exceed_context_size_error",
	"exceeds the available context size",
	"context_length_exceeded",
	"maximum context length is",
	"context length of only",
	"when context the overflows",
	"exceeds the context length",
	"exceeds context length",
	"reached context length of",
	"prompt is too long",
	"exceed context limit",
}

// IsOverflowText reports whether an error type, code or message says the
// prompt did not fit the model's context window.
func IsOverflowText(s string) bool {
	s = strings.ToLower(s)
	for _, m := range overflowMarkers {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// Overflow is what a context-overflow error says in numbers: the window
// the server runs the model with and the prompt it refused, each 0 when
// the message does not name it.
type Overflow struct {
	Window, Prompt int
}

// The numbers in the servers' messages (overflowMarkers), as written.
var (
	windowPatterns = []*lazyregexp.Regexp{
		lazyregexp.New(`available context size \((\d+) tokens\)`),        // llama.cpp
		lazyregexp.New(`maximum context length is (\d+) tokens`),         // OpenAI, vLLM
		lazyregexp.New(`context length of only (\d+) tokens`),            // LM Studio
		lazyregexp.New(`exceeds (?:the )?context length (\d+)`),          // LM Studio, older
		lazyregexp.New(`reached context length of (\d+) tokens`),         // LM Studio, mid-generation
		lazyregexp.New(`prompt is too long: \d+ tokens > (\d+) maximum`), // Anthropic
		lazyregexp.New(`exceed context limit: \d+ \+ \d+ > (\d+)`),       // Anthropic, with max_tokens
	}
	promptPatterns = []*lazyregexp.Regexp{
		lazyregexp.New(`request \((\d+) tokens\) exceeds`),                      // llama.cpp
		lazyregexp.New(`(?:resulted in|requested|has) (\d+) (?:input )?tokens`), // OpenAI, vLLM
		lazyregexp.New(`keep the first (\d+) tokens`),                           // LM Studio
		lazyregexp.New(`input length (\d+) exceeds`),                            // LM Studio, older
		lazyregexp.New(`prompt is too long: (\d+) tokens`),                      // Anthropic
		lazyregexp.New(`exceed context limit: (\d+) \+`),                        // Anthropic
	}
)

// ParseOverflow reads the window and the prompt's size from a
// context-overflow message, where the server names them.
func ParseOverflow(message string) Overflow {
	s := strings.ToLower(message)
	return Overflow{Window: firstNumber(windowPatterns, s), Prompt: firstNumber(promptPatterns, s)}
}

func firstNumber(res []*lazyregexp.Regexp, s string) int {
	for _, re := range res {
		if m := re.FindStringSubmatch(s); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}
