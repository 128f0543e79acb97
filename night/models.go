package night

import (
	"cmp"
	"fmt"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/internal/endpoint"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/provider"
	"github.com/nightshift-dev/nightshift/retry"
)

// KeyEnv names the environment variable the model's key is read from:
// APIKeyEnv, else the provider's usual one (ANTHROPIC_API_KEY,
// OPENAI_API_KEY); "" for a scripted model, which needs none.
func (m ModelSpec) KeyEnv() string {
	switch m.Provider {
	case "anthropic":
		return cmp.Or(m.APIKeyEnv, "ANTHROPIC_API_KEY")
	case "openai":
		return cmp.Or(m.APIKeyEnv, "OPENAI_API_KEY")
	}
	return ""
}

// needsKey reports whether the model cannot be built without its key: a
// real provider's model at the provider's own endpoint (a base URL may
// name a server that takes none).
func (m ModelSpec) needsKey() bool { return m.KeyEnv() != "" && m.BaseURL == "" }

// BuildModels builds the pipeline's models. A scripted model whose
// scenario cannot be read makes the pipeline bad (exit 2). A real
// provider without its key is left unbuilt: before the night's first
// step, Run charges a config failure naming the variable (the system's,
// by the default rules), and the ledger records it. getenv reads the
// environment (os.Getenv).
func BuildModels(p *Pipeline, clk clock.Clock, getenv func(string) string) (map[string]llm.Model, error) {
	out := map[string]llm.Model{}
	for name, m := range p.Models {
		cfg := provider.Config{Provider: m.Provider, Model: m.Model, BaseURL: m.BaseURL, MaxTokensField: m.MaxTokensField,
			Clock: clk, Session: name}
		switch m.Provider {
		case "scripted":
			cfg.Scenario = p.Path(m.Scenario)
		default:
			cfg.APIKey = getenv(m.KeyEnv())
			if cfg.APIKey == "" && m.needsKey() {
				continue
			}
		}
		// The one registry of providers (llm/provider): the night
		// imports none of them.
		c, err := provider.Build(cfg)
		if err != nil {
			return nil, fmt.Errorf("%w: models.%s: %w", ErrBadPipeline, name, err)
		}
		out[name] = c
	}
	return out, nil
}

// Limiters returns a limiter for each of the pipeline's models from reg,
// one per credential: models that call one endpoint with one key share
// a limiter, so that their calls are paced together under the
// provider's rate limit. A scripted model is its own endpoint. getenv
// reads the keys (os.Getenv); a key is only ever hashed by reg.
func Limiters(p *Pipeline, reg *retry.Limiters, getenv func(string) string) map[string]*retry.Limiter {
	out := make(map[string]*retry.Limiter, len(p.Models))
	for name, m := range p.Models {
		credential := "model " + name
		if env := m.KeyEnv(); env != "" {
			credential = getenv(env)
		}
		// The endpoint key of every command (package internal/endpoint):
		// `nightshift run` on the same server with the same key paces
		// with this night.
		out[name] = reg.For(endpoint.Of(m.Provider, m.BaseURL, credential, getenv).Endpoint(), credential)
	}
	return out
}
