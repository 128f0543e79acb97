package llm_test

import (
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
)

// TestContextOverflowIsItsOwnClass: every server's way of saying "the
// prompt does not fit the window" is a context-overflow, never retried,
// with the window and the prompt read from the message where it names
// them (issue 28: llama.cpp's 400 ended the run as a plain api-failure).
func TestContextOverflowIsItsOwnClass(t *testing.T) {
	for _, tc := range []struct {
		name           string
		status         int
		typ, msg       string
		window, prompt int
	}{
		{"llama.cpp's exceed_context_size_error", 400, "exceed_context_size_error",
			"request (1210 tokens) exceeds the available context size (512 tokens), try increasing it", 512, 1210},
		{"an older llama.cpp's message", 400, "invalid_request_error",
			"the request exceeds the available context size, try increasing it", 0, 0},
		{"vLLM's BadRequestError with max_tokens", 400, "BadRequestError 400",
			"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.", 4096, 5000},
		{"vLLM's newer message", 400, "BadRequestError 400",
			"This model's maximum context length is 2048 tokens. However, your request has 8 input tokens plus 2045 'max_tokens'.", 2048, 8},
		{"OpenAI's context_length_exceeded", 400, "invalid_request_error context_length_exceeded",
			"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", 128000, 130000},
		{"LM Studio's overflow", 400, "",
			"Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough.", 4096, 5000},
		{"LM Studio's overflow in a stream's error event (a 500 by its type)", 500, "",
			"Trying to keep the first 15857 tokens when context the overflows. However, the model is loaded with context length of only 8192 tokens", 8192, 15857},
		{"Anthropic's prompt is too long", 400, "invalid_request_error",
			"prompt is too long: 210000 tokens > 200000 maximum", 200000, 210000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := llm.ClassifyStatus(tc.status, tc.typ, tc.msg)
			if c != llm.ContextOverflow || c.Retryable() {
				t.Fatalf("ClassifyStatus = %s (retryable %v), want context-overflow, not retried", c, c.Retryable())
			}
			e := llm.OverflowError(&llm.Error{Class: c, Message: tc.msg})
			if e.Window != tc.window || e.PromptTokens != tc.prompt {
				t.Errorf("window %d prompt %d, want %d and %d", e.Window, e.PromptTokens, tc.window, tc.prompt)
			}
		})
	}
	t.Run("a rate limit that mentions the context stays a rate limit", func(t *testing.T) {
		if c := llm.ClassifyStatus(429, "", "maximum context length is 10 tokens"); c != llm.RateLimited {
			t.Errorf("ClassifyStatus = %s, want rate-limited", c)
		}
	})
	t.Run("another 400 is a bad request", func(t *testing.T) {
		if c := llm.ClassifyStatus(400, "invalid_request_error", "messages: field required"); c != llm.BadRequest {
			t.Errorf("ClassifyStatus = %s, want bad-request", c)
		}
	})
}

func TestHasToolCallMarkup(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"<tool_call>\n {\"name\":\"", true},                      // llama.cpp's early cut, Qwen's template
		{"[TOOL_CALLS][{\"name\": \"read_file\", \"argu", true},   // Mistral
		{"<|tool_call|>[{\"name\":", true},                        // Phi-4
		{"<|python_tag|>{\"name\": \"read_", true},                // Llama 3.1
		{"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function", true}, // DeepSeek
		{"I will read the file first.\n<tool_call>\n{\"na", true},
		{"The tool_call tag is what Qwen writes.", false},
		{"", false},
	} {
		if got := llm.HasToolCallMarkup(tc.text); got != tc.want {
			t.Errorf("HasToolCallMarkup(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}
