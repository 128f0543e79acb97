// Package endpoint names where a model's calls go, under which
// credential: the one key that everything shared across runs is kept by
// (the rate limiter of package retry, and the circuit breaker and the
// learnt context window that key on the same endpoint). `nightshift run`,
// `batch` and every role of a night derive it the same way, so that calls
// to one server with one key are paced together whichever command made
// them.
//
//	k := endpoint.Of("anthropic", "", os.Getenv("ANTHROPIC_API_KEY"), os.Getenv)
//	lim := limiters.For(k.Endpoint(), k.Credential)
//
// The credential is kept only as a hash: a Key can be printed, logged and
// written to disk.
package endpoint
