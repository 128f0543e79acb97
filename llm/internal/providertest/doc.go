// Package providertest holds the check both providers' own wire tests make
// on a failed call: that it is a classified *llm.Error of that provider
// and that the API key appears in none of its renderings. What every
// provider must do is checked by the public suite, llm/llmtest.
package providertest
