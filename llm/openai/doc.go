// Package openai is an llm.Model on the Chat Completions API, through the
// official Go SDK with the SDK's own retries switched off: the retry package
// is nightshift's one, visible retry layer, so one Generate is exactly one
// HTTP request.
//
// Through Config.BaseURL it also serves OpenAI-compatible servers (Ollama,
// vLLM, llama.cpp): the key may be left empty for them, the output cap is
// sent as max_tokens (which they all understand; OpenAI's own endpoint gets
// max_completion_tokens, which its reasoning models need, and
// Config.MaxTokensField chooses), a tool call sent without an ID gets one,
// and a reply missing usage or carrying an unknown finish_reason is read,
// not refused.
//
// Every failure comes back as a *llm.Error with Provider "openai": an error
// status is classified by its status and the body's type and code (a 429
// insufficient_quota is Quota, not RateLimited), an error in the middle of
// a stream by its type or code, a dropped connection or a stream that ends
// without a finish_reason is Connection, a reply that cannot be decoded is
// Malformed. The API key never appears in an error.
//
// Chat Completions has no is_error on tool results: a failed tool's result
// is sent with its content prefixed "ERROR: ".
//
//	m, err := openai.New(openai.Config{BaseURL: "http://localhost:11434/v1", Model: "qwen3"})
//	if err != nil {
//		return err
//	}
//	resp, err := m.Generate(ctx, &llm.Request{Messages: []llm.Message{llm.UserText("Say hello.")}})
package openai
