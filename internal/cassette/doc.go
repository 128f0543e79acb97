// Package cassette records a model session as it crossed the wire and plays
// it back, so that a session on a real model becomes a regression test that
// needs no key and no network.
//
// A cassette is a file of JSON lines: a header line, then one Exchange per
// request, in the order the replies ended. Each exchange holds a digest of
// the request (its route, its position in its conversation and a hash of
// the conversation, as a scenario matches requests: llm/scripted), never the
// request itself, and the response exactly as the client received it: the
// status, the headers, the body, or for a stream each server-sent event with
// the time it was sent, and how the reply ended (whole, reset, stalled).
// Keys and credentials are redacted before anything is written (package
// redact); the headers that carry them are not written at all.
//
// The fault proxy (internal/proxy, `nightshift sim proxy --record FILE`) writes
// cassettes through a Writer. A Server (`nightshift sim serve --cassette
// FILE`) plays one back: each request gets the recorded reply of the same
// conversation, the n-th identical request the n-th recorded attempt (the
// last one repeats), as a scenario's attempts advance:
//
//	c, err := cassette.Load("session.jsonl")
//	if err != nil { ... }
//	srv := httptest.NewServer(cassette.NewServer(c, cassette.ServerConfig{}))
//
// docs/cassettes.md documents the format.
package cassette
