package endpoint_test

import (
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/internal/endpoint"
	"github.com/nightshift-dev/nightshift/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestAKeyNamesTheEndpointAndHidesTheCredential(t *testing.T) {
	env := map[string]string{"ANTHROPIC_BASE_URL": "http://127.0.0.1:9/"}
	getenv := func(k string) string { return env[k] }
	made := "sk-made-up-for-this-test"
	for _, c := range []struct {
		name           string
		a, b           endpoint.Key
		same           bool
		wantA, wantNot string
	}{
		{"the environment's base URL is the one given", endpoint.Of("anthropic", "", made, getenv), endpoint.Of("anthropic", "http://127.0.0.1:9", made, nil), true, "anthropic http://127.0.0.1:9 #", made},
		{"no base URL is the public API", endpoint.Of("openai", "", made, nil), endpoint.Of("openai", "https://api.openai.com/v1/", made, nil), true, "openai https://api.openai.com/v1 #", made},
		{"another credential is another key", endpoint.Of("openai", "", made, nil), endpoint.Of("openai", "", made+"2", nil), false, "openai", made},
	} {
		t.Run(c.name, func(t *testing.T) {
			if (c.a == c.b) != c.same {
				t.Errorf("%s and %s: same %v, want %v", c.a, c.b, c.a == c.b, c.same)
			}
			if s := c.a.String(); !strings.HasPrefix(s, c.wantA) || strings.Contains(s, c.wantNot) {
				t.Errorf("key %q: want it to start %q and hold no credential", s, c.wantA)
			}
		})
	}
}
