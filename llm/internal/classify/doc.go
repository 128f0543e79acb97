// Package classify turns the failure of one HTTP provider call into the
// *llm.Error that the rest of nightshift reads: an error status with the
// provider's error type and message, an error event received mid-stream, a
// dropped connection, a timeout, a cancellation or a reply that could not be
// decoded. It is shared by llm/anthropic and llm/openai so that both
// providers classify the same failure the same way.
//
// Every text it produces has the call's secret (the API key) removed.
package classify
