// Package providertest holds the checks and fixtures both providers' own
// wire tests share: that a failed call is a classified *llm.Error of that
// provider with the API key in none of its renderings (MustFail, with
// Failure and FailureOf for the part a test compares), a connection
// broken off mid-reply (Hijack), a server that records what a client
// sent (Serve, Recorder), and that a stream that stalls is
// cancelled and retried (StallRetried). What every provider must do is
// checked by the public suite, llm/llmtest; these are the checks of what
// the providers share under llm/internal, kept once so the two copies
// cannot drift.
package providertest
