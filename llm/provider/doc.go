// Package provider is the one registry that turns a provider spec
// (PROVIDER, a model name, a base URL, a key) into an llm.Model: the
// command's `run`, `batch` and `night` all build their models here, so
// that no other package imports a concrete provider (llm/anthropic,
// llm/openai, llm/scripted) to make one.
//
//	m, err := provider.Build(provider.Config{Provider: "openai", Model: "qwen2.5",
//		BaseURL: "http://localhost:11434/v1", APIKey: os.Getenv("OPENAI_API_KEY")})
//
// The names of the providers are runspec.Providers; a PROVIDER:MODEL is
// read by runspec.ParseModelRef.
package provider
