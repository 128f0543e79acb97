package runspec

import (
	"fmt"
	"slices"
	"strings"
)

// Providers are the providers a model can be on: the one registry of
// their names, which every front end reads a PROVIDER:MODEL through
// (ParseModelRef).
var Providers = []string{"anthropic", "openai", "scripted"}

// IsProvider reports whether p names a provider.
func IsProvider(p string) bool { return slices.Contains(Providers, p) }

// ParseModelRef reads MODEL or PROVIDER:MODEL ("" is none): the provider
// when the part before the first colon names one, else "" and the whole
// name (a local server's "llama3:8b"). A part before the colon that is a
// typo of a provider ("antropic:x", two edits or fewer from one) is an
// error that names the provider meant, never a model of that name sent to
// the worker's provider. A name with spaces around it is an error too.
func ParseModelRef(ref string) (provider, model string, err error) {
	if ref != strings.TrimSpace(ref) {
		return "", "", fmt.Errorf("%q: a model name has no spaces around it: write MODEL or PROVIDER:MODEL, or leave it out", ref)
	}
	p, m, ok := strings.Cut(ref, ":")
	if !ok {
		return "", ref, nil
	}
	if IsProvider(p) {
		return p, m, nil
	}
	if near := nearest(strings.ToLower(p), Providers); near != "" {
		return "", "", fmt.Errorf("%q: unknown provider %q; did you mean %s:%s? (providers: %s)", ref, p, near, m, strings.Join(Providers, ", "))
	}
	return "", ref, nil
}

// ProviderList names the providers for a message: "anthropic, openai or
// scripted".
func ProviderList() string {
	return strings.Join(Providers[:len(Providers)-1], ", ") + " or " + Providers[len(Providers)-1]
}
