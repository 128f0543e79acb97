// Package providertest holds the checks both providers' tests make on a
// failed call: that it is a classified *llm.Error of that provider and
// that the API key appears in none of its renderings.
package providertest
