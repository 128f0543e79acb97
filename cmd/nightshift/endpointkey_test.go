package main

import (
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/night"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/runspec"
)

// TestRunAndNightPaceOneEndpointUnderOneLimiter is issue 24's endpoint
// key: `run` keyed its limiter by the provider and the base URL it
// resolved from ANTHROPIC_BASE_URL, the night by its pipeline's base_url
// alone, so that the two paced one server and one key under two limiters.
func TestRunAndNightPaceOneEndpointUnderOneLimiter(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": "sk-made-up-endpoint-test", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
	getenv := func(k string) string { return env[k] }
	b, err := modelSpec{Model: runspec.Model{Provider: "anthropic", ModelName: "m"}}.resolve(getenv)
	if err != nil {
		t.Fatal(err)
	}
	p, err := night.ParsePipeline([]byte("window: {start: \"22:00\", end: \"06:00\"}\nmodels: {a: {provider: anthropic, model: m}}\nroles: {builder: {models: [a]}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	reg := retry.NewLimiters(retry.LimiterConfig{})
	if run, nightly := reg.For(b.endpoint, b.credential), night.Limiters(p, reg, getenv)["a"]; run != nightly {
		t.Errorf("run paces %q, the night another limiter: one endpoint and one key must share one", b.endpoint)
	}
}

// TestATypoedProviderIsAnErrorEverywhere: `--judge-model antropic:x` was
// a model named "antropic:x" on the worker's provider; it is a usage
// error naming the provider meant, for the judge and the fallback, on the
// command line and in a task file, and a local model's colon is still a
// model name.
func TestATypoedProviderIsAnErrorEverywhere(t *testing.T) {
	for _, args := range [][]string{
		{"--judge-model", "antropic:x"},
		{"--fallback-model", "opnai:x"},
	} {
		res := runCLI(t, append([]string{"run", "--provider", "scripted", "--scenario", "none.yaml", "--dir", t.TempDir()}, append(args, "task")...)...)
		if res.code != 2 || !strings.Contains(res.stderr, "did you mean") {
			t.Errorf("%v: exit %d, %q; want a usage error naming the provider meant", args, res.code, res.stderr)
		}
	}
	if _, _, err := runspec.ParseModelRef("llama3:8b"); err != nil {
		t.Errorf("llama3:8b: %v", err)
	}
}
