package llm

import "strings"

// toolCallMarkers open a tool call in the raw output of the common chat
// templates. A server that runs a model through its own template (llama.cpp
// with --jinja, Ollama, vLLM, LM Studio) parses this markup into
// structured tool calls; a reply cut before the markup was complete comes
// back as plain text holding it instead (llama.cpp: `<tool_call>\n
// {"name":"` as the content, finish_reason length).
var toolCallMarkers = []string{
	"<tool_call>",                  // Hermes, Qwen 2.5 and 3, GLM 4.5
	"[TOOL_CALLS]",                 // Mistral
	"<|tool_call|>",                // Phi-4, Granite
	"<|python_tag|>",               // Llama 3.1 and later
	"<function=",                   // Llama 3.1's custom form, Functionary, Qwen3-Coder
	"<｜tool▁calls▁begin｜>",         // DeepSeek V3 and R1
	"<｜tool▁call▁begin｜>",          // DeepSeek
	"<|tool_calls_section_begin|>", // Kimi K2
	"<|tool_call_begin|>",          // Kimi K2
	"<start_function_call>",        // FunctionGemma
	"<|channel|>commentary to=",    // gpt-oss (harmony)
	"<TOOLCALL>",                   // Nemotron
	"<seed:tool_call>",             // Seed-OSS
	"<minimax:tool_call>",          // MiniMax
	" functools[",                  // FireFunction
}

// HasToolCallMarkup reports whether text holds the opening of a tool call
// in a chat template's raw markup (toolCallMarkers): a reply that is a
// tool call the server did not get to parse.
func HasToolCallMarkup(text string) bool {
	for _, m := range toolCallMarkers {
		if strings.Contains(text, m) {
			return true
		}
	}
	return false
}
