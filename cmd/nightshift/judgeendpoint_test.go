package main

import (
	"testing"

	"github.com/nightshift-dev/nightshift/runspec"
)

// Regression (issue 11): `ANTHROPIC_API_KEY=… nightshift run --base-url
// $URL --judge-model anthropic:claude-haiku-4-5` sent the judge's request,
// key included, to the public API instead of $URL, because the worker's
// provider came from the environment rather than from --provider.
func TestTheJudgeUsesTheWorkersEndpointOnTheWorkersProvider(t *testing.T) {
	const url = "https://llm.internal.example"
	env := map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test", "OPENAI_API_KEY": "sk-openai-test", "OPENAI_BASE_URL": "https://openai.internal.example"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name  string
		flags modelSpec
		judge string
		want  string
	}{
		{"the provider inferred from the key, the judge named with it", modelSpec{Model: runspec.Model{BaseURL: url}}, "anthropic:claude-haiku-4-5", url},
		{"the provider given with --provider", modelSpec{Model: runspec.Model{Provider: "anthropic", BaseURL: url}}, "anthropic:claude-haiku-4-5", url},
		{"a judge named by model alone", modelSpec{Model: runspec.Model{BaseURL: url}}, "claude-haiku-4-5", url},
		{"a judge on another provider uses that provider's own base URL", modelSpec{Model: runspec.Model{BaseURL: url}}, "openai:gpt-4o-mini", "https://openai.internal.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jb, err := tt.flags.judge(tt.judge, getenv)
			if err != nil {
				t.Fatal(err)
			}
			if got := jb.target(); got != tt.want {
				t.Errorf("the judge goes to %q, want %q", got, tt.want)
			}
		})
	}
	// With no base URL of its own, a judge on another provider goes to
	// that provider's public API, not to the worker's --base-url.
	delete(env, "OPENAI_BASE_URL")
	jb, err := modelSpec{Model: runspec.Model{BaseURL: url}}.judge("openai:gpt-4o-mini", getenv)
	if err != nil {
		t.Fatal(err)
	}
	if got := jb.target(); got != "https://api.openai.com/v1" {
		t.Errorf("the judge goes to %q", got)
	}
}
