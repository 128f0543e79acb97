package provider

import (
	"fmt"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/anthropic"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/llm/openai"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/runspec"
)

// Config says which model to build. Provider is required; every other
// zero field takes the provider's default.
type Config struct {
	// Provider is anthropic, openai or scripted (runspec.Providers).
	Provider string
	// Model is the provider's model name; default the model table's
	// default worker.
	Model string
	// BaseURL is the endpoint; default the provider's (its *_BASE_URL, as
	// its SDK reads it, else its public API).
	BaseURL string
	// APIKey is the credential; never logged.
	APIKey string
	// Stream uses the streaming API; Stall cancels a stream quiet this
	// long (0: the providers' default; negative: never).
	Stream bool
	Stall  time.Duration
	// MaxTokensField is the OpenAI wire's cap field (openai only; ""
	// lets the endpoint choose).
	MaxTokensField string
	// Scenario is the scripted model's scenario file; Clock and Session
	// its clock and its prompt cache's session (a night's model name).
	Scenario string
	Clock    clock.Clock
	Session  string
}

// Build makes the model c names. A provider nobody knows, a cap field
// for another provider than openai, and a scenario that cannot be read
// are errors.
func Build(c Config) (llm.Model, error) {
	if err := CheckMaxTokensField(c.Provider, c.MaxTokensField); err != nil {
		return nil, err
	}
	switch c.Provider {
	case "scripted":
		sc, err := scripted.Load(c.Scenario)
		if err != nil {
			return nil, err
		}
		return scripted.New(sc, scripted.Config{Clock: c.Clock, Session: c.Session}), nil
	case "anthropic":
		return anthropic.New(anthropic.Config{APIKey: c.APIKey, BaseURL: c.BaseURL, Model: c.Model, Stream: c.Stream, Stall: c.Stall})
	case "openai":
		return openai.New(openai.Config{APIKey: c.APIKey, BaseURL: c.BaseURL, Model: c.Model, Stream: c.Stream,
			MaxTokensField: c.MaxTokensField, Stall: c.Stall})
	}
	return nil, fmt.Errorf("unknown provider %q: use %s", c.Provider, runspec.ProviderList())
}

// CheckMaxTokensField checks a cap field: "", or for openai
// max_tokens or max_completion_tokens.
func CheckMaxTokensField(p, field string) error {
	switch {
	case field == "":
		return nil
	case p != "openai":
		return fmt.Errorf("max_tokens_field is for provider openai, not %s", p)
	case field != openai.FieldMaxTokens && field != openai.FieldMaxCompletionTokens:
		return fmt.Errorf("max_tokens_field %q (%s or %s)", field, openai.FieldMaxTokens, openai.FieldMaxCompletionTokens)
	}
	return nil
}

// DefaultModel is the model a provider's client calls when none is
// named: the model table's default worker; "" for scripted.
func DefaultModel(p string) string {
	if p == "scripted" {
		return ""
	}
	return models.Default().DefaultModel(p, models.Worker)
}
