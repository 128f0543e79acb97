package lifecycle_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/anthropic"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/llm/openai"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/runspec"
)

// BenchmarkInputCost40Steps prices the input of a 40-step run (39 reads
// of 1 KB notes and an answer, the default system prompt and tools) on
// each wire's default worker model by the shipped model table, against
// the simulator, whose cache counts as the providers' do: with caching
// (input-usd-cached) and without (input-usd-uncached: every prompt token
// at the input price, which is what a --no-cache run pays on the
// Anthropic wire; OpenAI caches whether asked or not, so there it is
// what the run would cost without a cache). The figures are the same on
// every machine: tokens are estimated, not timed.
//
//	go test ./lifecycle -run '^$' -bench InputCost40Steps -benchtime 1x
func BenchmarkInputCost40Steps(b *testing.B) {
	var sc strings.Builder
	sc.WriteString("turns:\n")
	for i := range 39 {
		fmt.Fprintf(&sc, "  - tool_calls: [{name: read_file, input: {path: notes/n%d.md}}]\n", i%8)
	}
	sc.WriteString("  - text: \"Read every note.\"\n")
	table := models.Default()
	for _, provider := range []string{"anthropic", "openai"} {
		name := table.DefaultModel(provider, models.Worker)
		b.Run("wire="+provider+"/model="+name, func(b *testing.B) {
			var u llm.Usage
			for b.Loop() {
				u = run40(b, sc.String(), provider, name, false)
			}
			price := func(u llm.Usage) float64 {
				v, ok := table.Cost(provider, name, u).USD()
				if !ok {
					b.Fatalf("%s %s: no price in the table", provider, name)
				}
				return v
			}
			cached := price(llm.Usage{InputTokens: u.InputTokens, CacheWriteTokens: u.CacheWriteTokens, CacheReadTokens: u.CacheReadTokens})
			uncached := price(llm.Usage{InputTokens: u.InputTokens})
			if provider == "anthropic" {
				// A --no-cache run: no breakpoint, no cache use at all.
				nc := run40(b, sc.String(), provider, name, true)
				if nc.CacheReadTokens+nc.CacheWriteTokens != 0 || nc.InputTokens != u.InputTokens {
					b.Fatalf("a --no-cache run used %+v, the cached one %+v", nc, u)
				}
			}
			b.ReportMetric(cached, "input-usd-cached")
			b.ReportMetric(uncached, "input-usd-uncached")
			b.ReportMetric(100*(1-cached/uncached), "saved-%")
			b.ReportMetric(float64(u.InputTokens), "input-tokens")
			b.ReportMetric(float64(u.CacheReadTokens), "cache-read-tokens")
			b.ReportMetric(float64(u.CacheWriteTokens), "cache-write-tokens")
		})
	}
}

// run40 runs the scenario through provider's client against the
// simulator and returns the worker's usage.
func run40(b *testing.B, yaml, provider, name string, noCache bool) llm.Usage {
	b.Helper()
	dir := b.TempDir()
	for i := range 8 {
		p := filepath.Join(dir, "notes", fmt.Sprintf("n%d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("Note %d: a line of a kilobyte note.\n", i), 28)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	sc, err := scripted.Parse([]byte(yaml))
	if err != nil {
		b.Fatal(err)
	}
	fc := clock.NewFake(dusk)
	hs := httptest.NewServer(scripted.NewServer(sc, scripted.ServerConfig{Clock: fc}))
	defer hs.Close()
	var m llm.Model
	if provider == "anthropic" {
		m, err = anthropic.New(anthropic.Config{BaseURL: hs.URL, APIKey: "k", Model: name})
	} else {
		m, err = openai.New(openai.Config{BaseURL: hs.URL + "/v1", APIKey: "k", Model: name})
	}
	if err != nil {
		b.Fatal(err)
	}
	res, err := lifecycle.Run(context.Background(), lifecycle.Config{
		Dir: dir, Model: m, Clock: fc, Spec: &runspec.Spec{Model: runspec.Model{ModelName: name},
			Limits: runspec.Limits{MaxSteps: 40, LoopLimit: ptr(-1)}, LongRun: runspec.LongRun{NoCache: noCache}},
	}, "Read every note in notes/.")
	if err != nil {
		b.Fatal(err)
	}
	if res.Outcome != agent.Done || res.Steps != 40 {
		b.Fatalf("outcome %s after %d steps: %s", res.Outcome, res.Steps, res.Reason)
	}
	return res.Usage
}
