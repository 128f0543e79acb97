package provider_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/internal/testenv"
	"github.com/nightshift-dev/nightshift/llm/provider"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestBuild(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(sc, []byte("turns: [{text: done}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cfg  provider.Config
		want string // "" builds
	}{
		{"a scripted model", provider.Config{Provider: "scripted", Scenario: sc}, ""},
		{"an openai model at a local server", provider.Config{Provider: "openai", BaseURL: "http://127.0.0.1:9/v1", APIKey: "made-up", MaxTokensField: "max_tokens"}, ""},
		{"an anthropic model", provider.Config{Provider: "anthropic", APIKey: "made-up"}, ""},
		{"an unknown provider", provider.Config{Provider: "antropic"}, `unknown provider "antropic"`},
		{"a cap field on anthropic", provider.Config{Provider: "anthropic", MaxTokensField: "max_tokens"}, "is for provider openai"},
		{"a cap field nobody knows", provider.Config{Provider: "openai", MaxTokensField: "cap"}, `max_tokens_field "cap"`},
		{"a missing scenario", provider.Config{Provider: "scripted", Scenario: filepath.Join(dir, "none.yaml")}, "none.yaml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := provider.Build(c.cfg)
			switch {
			case c.want == "" && (err != nil || m == nil):
				t.Errorf("err = %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
	if provider.DefaultModel("anthropic") == "" || provider.DefaultModel("scripted") != "" {
		t.Errorf("default models: %q %q", provider.DefaultModel("anthropic"), provider.DefaultModel("scripted"))
	}
}
