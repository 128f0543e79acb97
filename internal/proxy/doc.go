// Package proxy is a fault proxy for model APIs: an HTTP server that stands
// in front of a real provider (or any OpenAI-compatible server, or `nightshift
// sim serve`), forwards the Anthropic Messages API and the OpenAI Chat
// Completions API to it, streaming and not, with the caller's own key, and
// injects faults into the real traffic on a seeded schedule
// (`nightshift sim proxy`).
//
// The faults are the API layer's and the model layer's of seed 000: an
// error status (429 with Retry-After, 529, 5xx), a connection reset before
// or after the headers, a reply cut mid-way, a stall, and, on a real answer,
// a truncation to max_tokens with its stop reason set, an empty answer,
// broken tool-call JSON, and a tool renamed to one that does not exist.
// Without a fault an exchange is transparent: the same bytes, framing and
// headers.
//
// A Schedule gives request n (from 1, in arrival order) the fault At[n], or
// draws one with the Rates' probabilities from a generator seeded by the
// seed and n alone, so the same seed gives the same schedule:
//
//	sched, err := proxy.ParseSchedule([]byte("rate: {429: 0.1, cut: 0.05}\nat: {1: empty}\n"))
//	if err != nil { ... }
//	p, err := proxy.New(proxy.Config{Upstream: "https://api.anthropic.com", Schedule: sched, Log: os.Stderr})
//	if err != nil { ... }
//	http.ListenAndServe("127.0.0.1:8080", p)
//
// With Config.Record, every exchange is written to a cassette (package
// cassette), keys redacted, for `nightshift sim serve --cassette` to replay.
// docs/scenarios.md documents the schedule's format.
package proxy
