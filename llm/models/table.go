package models

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/nightshift-dev/nightshift/internal/wholenum"
	"github.com/nightshift-dev/nightshift/llm"
)

// Roles a row may be the default for. The night's pipelines name their
// own roles; these are the ones the command line asks the table about.
const (
	// Worker is the model that does the work (run, batch, the night's
	// builder) when none is named.
	Worker = "worker"
	// Judge is the verifier's model when none is named.
	Judge = "judge"
)

// Wildcard as a row's model name prices every model of its provider that
// has no row of its own (the embedded table uses it only for the scripted
// simulator, which charges nothing).
const Wildcard = "*"

// Price is a set of prices in US dollars per million tokens. A nil figure
// is unknown: a call that needs it costs Unknown.
type Price struct {
	// Input is the price of prompt tokens neither written to nor read
	// from the cache.
	Input *float64 `yaml:"input"`
	// Output is the price of output tokens (reasoning tokens included).
	Output *float64 `yaml:"output"`
	// CacheWrite is the price of prompt tokens written to the cache (the
	// provider's default cache lifetime).
	CacheWrite *float64 `yaml:"cache_write"`
	// CacheRead is the price of prompt tokens read from the cache.
	CacheRead *float64 `yaml:"cache_read"`
}

// LongPrompt is a higher tier of prices that applies to a whole call,
// output included, when its prompt (every input token, cached or not)
// is longer than Above.
type LongPrompt struct {
	// Above is the prompt length, in tokens, past which the tier applies.
	Above int64 `yaml:"above"`
	// Price is the tier's prices; a figure left out is unknown, never the
	// lower tier's.
	Price Price `yaml:"price"`
}

// Row is one model of the table: what is known of it, and from where.
type Row struct {
	// Provider is "anthropic", "openai" or "scripted".
	Provider string `yaml:"provider"`
	// Name is the model name sent to the provider, or Wildcard.
	Name string `yaml:"model"`
	// Aliases are other names of the same model (dated snapshots).
	Aliases []string `yaml:"aliases"`
	// Roles lists the roles (Worker, Judge) this row is the provider's
	// default for. At most one row per provider claims a role.
	Roles []string `yaml:"roles"`
	// ContextWindow is the most tokens, prompt and output together, that
	// one call may hold; 0 is unknown.
	ContextWindow int64 `yaml:"context_window"`
	// Price is the model's prices; nil when none is known.
	Price *Price `yaml:"price"`
	// LongPrompt is a higher tier for long prompts, if the model has one.
	LongPrompt *LongPrompt `yaml:"long_prompt"`
	// Source says where the figures come from: one or more URLs, and
	// what could not be verified.
	Source string `yaml:"source"`
	// AsOf is the date (YYYY-MM-DD) the figures were read from Source.
	AsOf string `yaml:"as_of"`
	// Note is anything else a reader of the figures should know.
	Note string `yaml:"note"`
}

// Table is a set of model rows, looked up by provider and name. It is
// immutable once built, so one Table may be shared by every run.
type Table struct {
	rows []Row
}

// file is the shape of models.yaml and of an override file.
type file struct {
	Models []Row `yaml:"models"`
}

// defaultTable is models.yaml, made static data by the generator in
// rows_test.go: a start that reads a price or a default model parses no
// YAML (it took 0.6 ms and 3,957 allocations at every start).
var defaultTable = &Table{rows: embeddedRows}

// Default returns the embedded table.
func Default() *Table { return defaultTable }

// Parse reads a table from YAML. Unknown keys are errors, so a misspelt
// price never silently reads as unknown.
func Parse(data []byte) (*Table, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f file
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return &Table{}, nil
		}
		return nil, fmt.Errorf("models: %w", err)
	}
	if err := wholenum.Check(data, &f); err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	t := &Table{rows: f.Models}
	if err := t.validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// Load reads the table file at path, to be laid over Default with Merge.
func Load(path string) (*Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

func (t *Table) validate() error {
	names := map[[2]string]int{}
	roles := map[[2]string]int{}
	for i, m := range t.rows {
		at := fmt.Sprintf("models: row %d", i+1)
		if m.Provider == "" || m.Name == "" {
			return fmt.Errorf("%s: needs provider and model", at)
		}
		at += fmt.Sprintf(" (%s %s)", m.Provider, m.Name)
		for _, n := range append([]string{m.Name}, m.Aliases...) {
			k := [2]string{m.Provider, n}
			if j, dup := names[k]; dup {
				return fmt.Errorf("%s: %s is also row %d", at, n, j+1)
			}
			names[k] = i
		}
		for _, r := range m.Roles {
			k := [2]string{m.Provider, r}
			if j, dup := roles[k]; dup {
				return fmt.Errorf("%s: role %s is already row %d's", at, r, j+1)
			}
			roles[k] = i
		}
		if m.ContextWindow < 0 {
			return fmt.Errorf("%s: negative context_window", at)
		}
		if m.AsOf != "" {
			if _, err := time.Parse(time.DateOnly, m.AsOf); err != nil {
				return fmt.Errorf("%s: as_of %q is not a date (YYYY-MM-DD)", at, m.AsOf)
			}
		}
		if m.Price != nil {
			if err := m.Price.validate(); err != nil {
				return fmt.Errorf("%s: price: %w", at, err)
			}
		}
		if lp := m.LongPrompt; lp != nil {
			if lp.Above <= 0 {
				return fmt.Errorf("%s: long_prompt.above must be a positive number of tokens", at)
			}
			if err := lp.Price.validate(); err != nil {
				return fmt.Errorf("%s: long_prompt.price: %w", at, err)
			}
		}
	}
	return nil
}

func (p *Price) validate() error {
	for _, f := range []struct {
		name string
		v    *float64
	}{{"input", p.Input}, {"output", p.Output}, {"cache_write", p.CacheWrite}, {"cache_read", p.CacheRead}} {
		if f.v != nil && *f.v < 0 {
			return fmt.Errorf("%s is negative", f.name)
		}
	}
	return nil
}

// Models returns the rows, in the order they were read (a merged table:
// the overriding rows first).
func (t *Table) Models() []Row { return slices.Clone(t.rows) }

// Merge returns a table with over's rows laid over t's: a row of over
// replaces t's row of the same provider and name (or alias), taking that
// row's names as its aliases so every name still finds it, and a role that
// a row of over claims is taken from t's rows of that provider. Neither
// table is changed.
func (t *Table) Merge(over *Table) *Table {
	replacer := map[[2]string]int{}
	claimed := map[[2]string]bool{}
	for i, m := range over.rows {
		for _, n := range append([]string{m.Name}, m.Aliases...) {
			replacer[[2]string{m.Provider, n}] = i
		}
		for _, r := range m.Roles {
			claimed[[2]string{m.Provider, r}] = true
		}
	}
	out := &Table{rows: slices.Clone(over.rows)}
	for _, m := range t.rows {
		names := append([]string{m.Name}, m.Aliases...)
		by := -1
		for _, n := range names {
			if i, ok := replacer[[2]string{m.Provider, n}]; ok {
				by = i
				break
			}
		}
		if by >= 0 {
			r := &out.rows[by]
			for _, n := range names {
				if n != r.Name && !slices.Contains(r.Aliases, n) {
					r.Aliases = append(slices.Clip(r.Aliases), n)
				}
			}
			continue
		}
		m.Roles = slices.DeleteFunc(slices.Clone(m.Roles), func(r string) bool {
			return claimed[[2]string{m.Provider, r}]
		})
		out.rows = append(out.rows, m)
	}
	return out
}

// Lookup returns the row of provider's model: by name, then by alias, then
// the provider's Wildcard row.
func (t *Table) Lookup(provider, model string) (Row, bool) {
	wild := -1
	for i, m := range t.rows {
		if m.Provider != provider {
			continue
		}
		if m.Name == model || slices.Contains(m.Aliases, model) {
			return m, true
		}
		if m.Name == Wildcard && wild < 0 {
			wild = i
		}
	}
	if wild >= 0 {
		return t.rows[wild], true
	}
	return Row{}, false
}

// DefaultModel returns the name of provider's default model for role, or
// "" when the table names none.
func (t *Table) DefaultModel(provider, role string) string {
	for _, m := range t.rows {
		if m.Provider == provider && slices.Contains(m.Roles, role) {
			return m.Name
		}
	}
	return ""
}

// Cost prices one call of provider's model that used u. A model without a
// row costs Unknown.
func (t *Table) Cost(provider, model string, u llm.Usage) Cost {
	m, ok := t.Lookup(provider, model)
	if !ok {
		return Unknown
	}
	return m.Cost(u)
}

// Cost prices one call that used u: uncached prompt tokens at the input
// price, cache writes and reads at theirs, output at the output price, all
// at the long-prompt tier when the call's prompt was longer than its
// threshold. A figure the call needed but the row lacks makes it Unknown.
//
// Price each call on its own and add the costs, not the usages: the tier
// depends on each call's own prompt.
func (m Row) Cost(u llm.Usage) Cost {
	p := m.Price
	if lp := m.LongPrompt; lp != nil && u.InputTokens > lp.Above {
		p = &lp.Price
	}
	if p == nil {
		return Unknown
	}
	total := 0.0
	for _, part := range []struct {
		tokens int64
		price  *float64
	}{
		{u.Uncached(), p.Input},
		{u.CacheWriteTokens, p.CacheWrite},
		{u.CacheReadTokens, p.CacheRead},
		{u.OutputTokens, p.Output},
	} {
		if part.tokens == 0 {
			continue
		}
		if part.price == nil {
			return Unknown
		}
		total += float64(part.tokens) * *part.price / 1e6
	}
	return USD(total)
}
