package models_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/anthropic"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/llm/openai"
)

func TestEveryRowNamesItsSourceAndDate(t *testing.T) {
	rows := models.Default().Models()
	if len(rows) == 0 {
		t.Fatal("the embedded table is empty")
	}
	for _, m := range rows {
		t.Run(m.Provider+" "+m.Name, func(t *testing.T) {
			if strings.TrimSpace(m.Source) == "" {
				t.Error("no source")
			}
			if m.Provider != "scripted" && !strings.Contains(m.Source, "https://") {
				t.Errorf("source %q names no URL", m.Source)
			}
			if _, err := time.Parse(time.DateOnly, m.AsOf); err != nil {
				t.Errorf("as_of %q is not a date", m.AsOf)
			}
		})
	}
}

func TestEveryDefaultModelHasARow(t *testing.T) {
	tab := models.Default()
	for _, provider := range []string{"anthropic", "openai"} {
		for _, role := range []string{models.Worker, models.Judge} {
			t.Run(provider+" "+role, func(t *testing.T) {
				name := tab.DefaultModel(provider, role)
				if name == "" {
					t.Fatal("no default model")
				}
				m, ok := tab.Lookup(provider, name)
				if !ok {
					t.Fatalf("default %s has no row", name)
				}
				if m.ContextWindow <= 0 {
					t.Errorf("%s: no context window", name)
				}
				if c := m.Cost(llm.Usage{InputTokens: 1000, OutputTokens: 1000, CacheReadTokens: 100}); !c.Known() {
					t.Errorf("%s: a plain call costs %s", name, c)
				}
			})
		}
	}
}

func TestProvidersDefaultsComeFromTheTable(t *testing.T) {
	tab := models.Default()
	if got, want := anthropic.DefaultModel, tab.DefaultModel("anthropic", models.Worker); got != want {
		t.Errorf("anthropic.DefaultModel = %q, the table's worker is %q", got, want)
	}
	if got, want := openai.DefaultModel, tab.DefaultModel("openai", models.Worker); got != want {
		t.Errorf("openai.DefaultModel = %q, the table's worker is %q", got, want)
	}
}

// TestDefaultModelsAreNotDeprecatedByThePinnedSDKs reads the model
// constants of the SDK versions go.mod pins, as the compiler sees them,
// and refuses a default whose constant carries a "Deprecated:" comment.
func TestDefaultModelsAreNotDeprecatedByThePinnedSDKs(t *testing.T) {
	// deprecated is a model each SDK version marks deprecated: proof that
	// the comments are being read at all.
	sdks := map[string]struct{ module, file, deprecated string }{
		"anthropic": {"github.com/anthropics/anthropic-sdk-go", "message.go", "claude-sonnet-4-5"},
		"openai":    {"github.com/openai/openai-go/v3", "shared/shared.go", "gpt-4.1"},
	}
	tab := models.Default()
	for provider, sdk := range sdks {
		t.Run(provider, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", sdk.module).Output()
			if err != nil {
				t.Skipf("go list %s: %v (module cache unavailable)", sdk.module, err)
			}
			consts := sdkModels(t, filepath.Join(strings.TrimSpace(string(out)), sdk.file))
			if !strings.Contains(consts[sdk.deprecated], "Deprecated:") {
				t.Fatalf("%s reads as not deprecated: the SDK's comments are not being read", sdk.deprecated)
			}
			for _, role := range []string{models.Worker, models.Judge} {
				name := tab.DefaultModel(provider, role)
				doc, ok := consts[name]
				if !ok {
					t.Errorf("%s default %s is not a model constant of %s", role, name, sdk.module)
					continue
				}
				if strings.Contains(doc, "Deprecated:") {
					t.Errorf("%s default %s is deprecated by the pinned SDK: %s", role, name, doc)
				}
			}
		})
	}
}

// sdkModels returns the string constants of a Go file with their doc
// comments, by value.
func sdkModels(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for _, v := range vs.Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				val, _ := strconv.Unquote(lit.Value)
				out[val] = vs.Doc.Text()
			}
		}
	}
	return out
}

func TestCost(t *testing.T) {
	tab, err := models.Parse([]byte(`
models:
  - {provider: p, model: plain, price: {input: 2, output: 10, cache_write: 2.5, cache_read: 0.2}, source: s, as_of: 2026-01-01}
  - {provider: p, model: nocache, price: {input: 2, output: 10}}
  - provider: p
    model: tiered
    price: {input: 1, output: 5, cache_read: 0.1}
    long_prompt: {above: 1000, price: {input: 2, output: 10}}
  - {provider: free, model: "*", price: {input: 0, output: 0, cache_write: 0, cache_read: 0}}
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		model string
		u     llm.Usage
		want  string
	}{
		{"input and output at their prices", "plain", llm.Usage{InputTokens: 1_000_000, OutputTokens: 100_000}, "$3.0000"},
		{"cache writes and reads are taken out of the input and priced apart", "plain",
			llm.Usage{InputTokens: 1_000_000, CacheWriteTokens: 200_000, CacheReadTokens: 500_000, OutputTokens: 0}, "$1.2000"},
		{"a model without a row costs unknown, never zero", "nosuch", llm.Usage{InputTokens: 10}, "unknown"},
		{"a cache read without a cache price is unknown", "nocache", llm.Usage{InputTokens: 100, CacheReadTokens: 10}, "unknown"},
		{"no cache use needs no cache price", "nocache", llm.Usage{InputTokens: 1_000_000}, "$2.0000"},
		{"a short prompt pays the lower tier", "tiered", llm.Usage{InputTokens: 1000, OutputTokens: 1000}, "$0.0060"},
		{"a long prompt pays the higher tier on every token", "tiered", llm.Usage{InputTokens: 1001, OutputTokens: 1000}, "$0.0120"},
		{"the higher tier does not borrow the lower tier's cache price", "tiered", llm.Usage{InputTokens: 2000, CacheReadTokens: 1000}, "unknown"},
		{"a zero call of a priced model costs zero", "plain", llm.Usage{}, "$0.0000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tab.Cost("p", tt.model, tt.u).String(); got != tt.want {
				t.Errorf("cost = %s, want %s", got, tt.want)
			}
		})
	}
	t.Run("a wildcard row prices every model of its provider", func(t *testing.T) {
		if got := tab.Cost("free", "anything", llm.Usage{InputTokens: 5}); got.String() != "$0.0000" {
			t.Errorf("cost = %s", got)
		}
	})
	t.Run("the scripted simulator costs nothing", func(t *testing.T) {
		if got := models.Default().Cost("scripted", "scripted", llm.Usage{InputTokens: 5, OutputTokens: 5}); got.String() != "$0.0000" {
			t.Errorf("cost = %s", got)
		}
	})
}

func TestCostAddsUpAndSaysUnknown(t *testing.T) {
	sum := models.USD(0.5).Add(models.USD(0.25))
	if v, ok := sum.USD(); !ok || v != 0.75 {
		t.Errorf("sum = %v %v", v, ok)
	}
	if sum.Add(models.Unknown).Known() {
		t.Error("a sum with an unknown part is known")
	}
	var zero models.Cost
	if zero.Known() {
		t.Error("the zero Cost is known: a cost nobody computed would pass for free")
	}
	b, err := json.Marshal(map[string]models.Cost{"known": models.USD(0.125), "unknown": models.Unknown})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"known":0.125,"unknown":null}` {
		t.Errorf("JSON = %s", b)
	}
	var back map[string]models.Cost
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !back["known"].Known() || back["unknown"].Known() {
		t.Errorf("round trip = %v", back)
	}
}

func TestMergeReplacesRowsAndMovesRoles(t *testing.T) {
	over, err := models.Parse([]byte(`
models:
  - {provider: anthropic, model: claude-haiku-4-5-20251001, roles: [judge], price: {input: 9, output: 9}}
  - {provider: local, model: llama, roles: [worker], context_window: 8192, price: {input: 0, output: 0}}
`))
	if err != nil {
		t.Fatal(err)
	}
	base := models.Default()
	got := base.Merge(over)
	if got.DefaultModel("anthropic", models.Judge) != "claude-haiku-4-5-20251001" {
		t.Errorf("judge = %q, want the override's", got.DefaultModel("anthropic", models.Judge))
	}
	if got.DefaultModel("anthropic", models.Worker) != base.DefaultModel("anthropic", models.Worker) {
		t.Errorf("the worker moved though the override did not claim it")
	}
	if m, _ := got.Lookup("anthropic", "claude-haiku-4-5"); m.Name != "claude-haiku-4-5-20251001" {
		t.Errorf("the row named by an alias was not replaced: %+v", m)
	}
	if _, ok := got.Lookup("local", "llama"); !ok {
		t.Errorf("a new provider's row was not added")
	}
	if base.DefaultModel("anthropic", models.Judge) == "claude-haiku-4-5-20251001" {
		t.Errorf("Merge changed the base table")
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"a misspelt key", `models: [{provider: p, model: m, prce: {input: 1}}]`, "prce"},
		{"a misspelt price", `models: [{provider: p, model: m, price: {inptu: 1}}]`, "inptu"},
		{"a negative price", `models: [{provider: p, model: m, price: {input: -1}}]`, "negative"},
		{"a row without a model", `models: [{provider: p}]`, "needs provider and model"},
		{"the same model twice", `models: [{provider: p, model: m}, {provider: p, model: n, aliases: [m]}]`, "also row 1"},
		{"a role claimed twice", `models: [{provider: p, model: m, roles: [worker]}, {provider: p, model: n, roles: [worker]}]`, "already row 1"},
		{"a date that is not one", `models: [{provider: p, model: m, as_of: yesterday}]`, "not a date"},
		{"a tier without a threshold", `models: [{provider: p, model: m, long_prompt: {price: {input: 1}}}]`, "long_prompt.above"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := models.Parse([]byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestLoadNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "models.yaml")
	_, err := models.Load(path)
	if err == nil || !strings.Contains(err.Error(), "models.yaml") {
		t.Errorf("err = %v", err)
	}
}

func TestModelsKeepsFileOrder(t *testing.T) {
	tab, err := models.Parse([]byte(`models: [{provider: p, model: b}, {provider: p, model: a}]`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range tab.Models() {
		names = append(names, m.Name)
	}
	if diff := cmp.Diff([]string{"b", "a"}, names); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Regression (issue 15 review): a context window with a fraction was read
// with the fraction dropped; it is an error naming the key.
func TestAModelsFileFractionIsAnError(t *testing.T) {
	_, err := models.Parse([]byte("models:\n  - {provider: x, model: y, context_window: 1.5, price: {input: 1, output: 1}}\n"))
	if err == nil || !strings.Contains(err.Error(), "models.context_window: 1.5 is not a whole number") {
		t.Errorf("got %v", err)
	}
}
