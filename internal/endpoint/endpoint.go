package endpoint

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// PublicAPI is where a provider's calls go without a base URL: the
// official SDKs' defaults.
var PublicAPI = map[string]string{
	"anthropic": "https://api.anthropic.com",
	"openai":    "https://api.openai.com/v1",
}

// BaseURLEnv names the variable a provider's SDK reads its base URL from
// when none is given.
var BaseURLEnv = map[string]string{
	"anthropic": "ANTHROPIC_BASE_URL",
	"openai":    "OPENAI_BASE_URL",
}

// Key is one endpoint under one credential.
type Key struct {
	// Provider is anthropic, openai or scripted.
	Provider string
	// BaseURL is where the calls go: the one given, else the provider's
	// *_BASE_URL, else its public API, without a trailing slash; a
	// scripted model's is its scenario file ("in-process").
	BaseURL string
	// Credential is a hash of the key the calls carry (a scripted
	// model's: of its scenario), never the key.
	Credential string
}

// Of derives the key of calls to provider at baseURL ("" for the
// default) with credential; getenv reads the provider's *_BASE_URL.
func Of(provider, baseURL, credential string, getenv func(string) string) Key {
	if provider != "scripted" {
		env := ""
		if name := BaseURLEnv[provider]; name != "" && getenv != nil {
			env = getenv(name)
		}
		baseURL = cmp.Or(baseURL, env, PublicAPI[provider])
	}
	sum := sha256.Sum256([]byte(credential))
	return Key{Provider: provider, BaseURL: strings.TrimRight(baseURL, "/"), Credential: hex.EncodeToString(sum[:8])}
}

// Endpoint is the provider and its base URL, the limiter's endpoint.
func (k Key) Endpoint() string { return k.Provider + " " + k.BaseURL }

// String prints the key, its credential as its hash.
func (k Key) String() string { return fmt.Sprintf("%s #%s", k.Endpoint(), k.Credential) }
