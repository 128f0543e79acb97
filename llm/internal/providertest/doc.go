// Package providertest holds the checks both providers' own wire tests
// make: that a failed call is a classified *llm.Error of that provider
// with the API key in none of its renderings (MustFail), and that a
// stream that stalls is cancelled and retried (StallRetried). What every
// provider must do is checked by the public suite, llm/llmtest; these are
// the checks of what the providers share under llm/internal.
package providertest
