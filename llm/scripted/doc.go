// Package scripted is a scripted language model: it plays a scenario of
// replies and injected faults, either in process (Model, an llm.Model) or
// as an HTTP server (Server) that speaks the Anthropic Messages API and the
// OpenAI Chat Completions API, streaming and not, so that the real SDK
// clients and the nightshift providers can be tested against the wire.
// Both transports share one reply-selection engine, so a scenario behaves
// the same through either.
//
// A scenario is YAML (docs/scenarios.md documents it completely):
//
//	turns:
//	  - attempts:
//	      - {status: 429, headers: {retry-after: "1"}}
//	      - tool_calls: [{name: read_file, input: {path: notes.txt}}]
//	  - text: "Done: 3 notes summarised."
//
// A request's turn is chosen by its position: the number of assistant
// messages it already holds. So concurrent conversations each follow the
// scenario on their own, and each next step of an agent advances it.
// Attempts at one position advance when the same request is made again (a
// retry), keyed by the conversation's content and an optional session.
//
// Faults become classified *llm.Error values in process, and the
// provider's own error statuses, bodies and headers over HTTP; a dropped
// connection is a real dropped connection.
package scripted
