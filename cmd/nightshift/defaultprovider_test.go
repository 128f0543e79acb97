package main

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// TestDefaultProviderFollowsTheKeys: with no --provider, anthropic when
// its key is set, else openai when its key is set; base URLs come from
// the environment too. The route the simulator was called on shows which
// wire format was spoken.
func TestDefaultProviderFollowsTheKeys(t *testing.T) {
	cases := []struct {
		name  string
		env   func(url string) []string
		route string
	}{
		{"both keys set: anthropic", func(u string) []string {
			return []string{"ANTHROPIC_API_KEY=a", "ANTHROPIC_BASE_URL=" + u, "OPENAI_API_KEY=o", "OPENAI_BASE_URL=" + u}
		}, "/v1/messages"},
		{"only the OpenAI key set: openai", func(u string) []string {
			return []string{"OPENAI_API_KEY=o", "OPENAI_BASE_URL=" + u}
		}, "/chat/completions"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scripted.Parse([]byte(`turns: [{text: "Hi."}]`))
			if err != nil {
				t.Fatal(err)
			}
			sim := scripted.NewServer(sc, scripted.ServerConfig{})
			var mu sync.Mutex
			var routes []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				routes = append(routes, r.URL.Path)
				mu.Unlock()
				sim.ServeHTTP(w, r)
			}))
			defer srv.Close()
			res := runCLIEnv(t, tc.env(srv.URL), "run", "--dir", t.TempDir(), "--no-judge", "Say hi")
			if res.code != 0 || res.stdout != "Hi.\n" {
				t.Fatalf("exit %d, stdout %q\n%s", res.code, res.stdout, res.stderr)
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff([]string{tc.route}, routes); diff != "" {
				t.Errorf("routes called (-want +got):\n%s", diff)
			}
		})
	}
}
