package claimeval

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// File is one file of a case's workspace after the run.
type File struct {
	// Path is relative to the workspace.
	Path string `yaml:"path"`
	// Content is the file's content. With Chars set, Fill is repeated
	// and cut to exactly Chars characters instead.
	Content string `yaml:"content,omitempty"`
	Fill    string `yaml:"fill,omitempty"`
	Chars   int    `yaml:"chars,omitempty"`
	// Unchanged marks a file that was there before the run and that the
	// run did not change; default: the run wrote it.
	Unchanged bool `yaml:"unchanged,omitempty"`
}

// Ran is one tool call of a case's run: a command with its exit status,
// or a tool the check cannot see into.
type Ran struct {
	Command string `yaml:"command,omitempty"`
	Exit    int    `yaml:"exit,omitempty"`
	Tool    string `yaml:"tool,omitempty"`
}

// Expect is one claim the answer makes, with the verdict a careful person
// gives it.
type Expect struct {
	// Kind is the claim's kind (chars, words, lines, bytes, items,
	// written, deleted, tests, build, lint, answer-items).
	Kind string `yaml:"kind"`
	// Path, when set, is the file the claim is about.
	Path string `yaml:"path,omitempty"`
	// Verdict is true, false or unchecked: unchecked for a claim code
	// should not decide.
	Verdict string `yaml:"verdict"`
}

// Case is one final answer with the run it ended.
type Case struct {
	Name string `yaml:"name"`
	// Lang is en or zh, for the report.
	Lang   string `yaml:"lang"`
	Task   string `yaml:"task"`
	Answer string `yaml:"answer"`
	Files  []File `yaml:"files,omitempty"`
	// Deleted are the paths the run deleted.
	Deleted []string `yaml:"deleted,omitempty"`
	// Ran are the run's commands and other tools; NoHistory marks a
	// caller that does not know them.
	Ran       []Ran `yaml:"ran,omitempty"`
	NoHistory bool  `yaml:"no_history,omitempty"`
	// Expect lists the claims the answer makes. A claim the check finds
	// that is not listed must not be false: the answer does not make it.
	Expect []Expect `yaml:"expect"`
}

// content returns the file's content.
func (f File) content() string {
	if f.Chars <= 0 {
		return f.Content
	}
	fill := f.Fill
	if fill == "" {
		fill = f.Content
	}
	if fill == "" {
		fill = "x"
	}
	var b strings.Builder
	for n := 0; n < f.Chars; n += len([]rune(fill)) {
		b.WriteString(fill)
	}
	return string([]rune(b.String())[:f.Chars])
}

// falseClaims reports whether a careful person finds a false claim in
// the case.
func (c *Case) falseClaims() bool {
	for _, e := range c.Expect {
		if e.Verdict == "false" {
			return true
		}
	}
	return false
}

//go:embed testdata/cases.yaml
var defaultCases []byte

// DefaultCases returns the shipped case set
// (verify/claims/claimeval/testdata/cases.yaml, embedded).
func DefaultCases() []Case {
	cases, err := ParseCases(defaultCases)
	if err != nil {
		// The file is embedded and tested; failing here is a build bug.
		panic("claimeval: default cases: " + err.Error())
	}
	return cases
}

// LoadCases reads a case file.
func LoadCases(path string) ([]Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("claimeval: %w", err)
	}
	cases, err := ParseCases(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cases, nil
}

// kinds are the claim kinds a case may expect, by group.
var kinds = map[string]string{
	"chars": "count", "words": "count", "lines": "count", "bytes": "count", "items": "count",
	"written": "file", "deleted": "file",
	"tests": "command", "build": "command", "lint": "command",
	"answer-items": "answer",
}

// ParseCases reads a YAML list of cases. Unknown fields are errors, so a
// misspelt field never silently does nothing; every case needs a name,
// an answer, a language of en or zh, paths inside the workspace and
// expectations of a known kind and verdict.
func ParseCases(data []byte) ([]Case, error) {
	var cases []Case
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cases); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w (the format is in docs/eval.md)", err)
	}
	if len(cases) == 0 {
		return nil, errors.New("no cases: a case file is a YAML list of cases (docs/eval.md)")
	}
	seen := map[string]bool{}
	for i := range cases {
		c := &cases[i]
		if c.Name == "" {
			return nil, fmt.Errorf("case %d has no name", i+1)
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("case %q appears twice: give each case its own name", c.Name)
		}
		seen[c.Name] = true
		if err := c.validate(); err != nil {
			return nil, fmt.Errorf("case %q: %w", c.Name, err)
		}
	}
	return cases, nil
}

func (c *Case) validate() error {
	if strings.TrimSpace(c.Answer) == "" {
		return errors.New("no answer")
	}
	if c.Lang != "en" && c.Lang != "zh" {
		return fmt.Errorf("lang must be en or zh, got %q", c.Lang)
	}
	for _, f := range c.Files {
		if !filepath.IsLocal(f.Path) {
			return fmt.Errorf("file path %q must be relative and stay inside the workspace", f.Path)
		}
	}
	for _, p := range c.Deleted {
		if !filepath.IsLocal(p) {
			return fmt.Errorf("deleted path %q must be relative and stay inside the workspace", p)
		}
	}
	for _, e := range c.Expect {
		if kinds[e.Kind] == "" {
			return fmt.Errorf("expect: unknown kind %q", e.Kind)
		}
		switch e.Verdict {
		case "true", "false", "unchecked":
		default:
			return fmt.Errorf("expect: verdict must be true, false or unchecked, got %q", e.Verdict)
		}
	}
	return nil
}
