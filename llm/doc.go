// Package llm holds the provider-neutral vocabulary of nightshift: messages
// and their content blocks, tool specifications, stop reasons, token usage,
// the Model interface every provider implements, and the one classification
// of provider failures that every other part (retry, agent, night) reads.
//
// Decisions are made on an error's Class, never on its message text:
//
//	var e *llm.Error
//	if errors.As(err, &e) && e.Class.Retryable() {
//		// wrong timing: wait and call again
//	}
package llm
