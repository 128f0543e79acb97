package eval

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/nightshift-dev/nightshift/verify"
)

// File is one file a case's run changed, with its final content.
type File struct {
	// Path is relative to the workspace.
	Path string `yaml:"path" json:"path"`
	// Content is the file's final content.
	Content string `yaml:"content" json:"content"`
	// Deleted marks a file the run removed; Content is then ignored.
	Deleted bool `yaml:"deleted,omitempty" json:"deleted,omitempty"`
}

// Case is one judged result.
type Case struct {
	// Name identifies the case in the report; default "case N".
	Name string `yaml:"name" json:"name"`
	// Task is the task text the worker was given.
	Task string `yaml:"task" json:"task"`
	// Rubric holds extra acceptance criteria, as a task file's rubric.
	Rubric string `yaml:"rubric,omitempty" json:"rubric,omitempty"`
	// Answer is the worker's final answer.
	Answer string `yaml:"answer" json:"answer"`
	// Files are the files the run changed.
	Files []File `yaml:"files" json:"files"`
	// Transcript is the conversation that led to the result, one turn per
	// entry, as plain text. Only the transcript condition shows it.
	Transcript []string `yaml:"transcript" json:"transcript"`
	// Checks are optional rules (verify.ParseRule specs) run on the
	// case's files, to compare what rules catch with what the judge
	// catches.
	Checks []string `yaml:"checks,omitempty" json:"checks,omitempty"`
	// Expect is the right verdict: PASS or FAIL.
	Expect string `yaml:"expect" json:"expect"`

	rules []verify.Rule
}

// ExpectPass reports whether the case should pass.
func (c *Case) ExpectPass() bool { return strings.EqualFold(c.Expect, "PASS") }

//go:embed testdata/cases.yaml
var defaultCases []byte

// DefaultCases returns the shipped case set (verify/eval/testdata/cases.yaml,
// embedded): twelve real-looking results, half of them half-finished work.
func DefaultCases() []Case {
	cases, err := ParseCases(defaultCases, ".")
	if err != nil {
		// The file is embedded and tested; failing here is a build bug.
		panic("eval: default cases: " + err.Error())
	}
	return cases
}

// LoadCases reads a case file, YAML or JSON lines (see ParseCases). A
// check's relative schema file is found beside the case file.
func LoadCases(path string) ([]Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	cases, err := ParseCases(data, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cases, nil
}

// ParseCases reads cases from YAML (a list of cases) or from JSON lines
// (one case object per line), told apart by the first non-blank character:
// "{" means JSON lines. Unknown fields are errors, so a misspelt field
// never silently does nothing. baseDir is where checks find relative
// schema files. Every case is validated: a task, an expectation of PASS or
// FAIL, paths inside the workspace, unique names and checks that parse.
func ParseCases(data []byte, baseDir string) ([]Case, error) {
	var cases []Case
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		for {
			var c Case
			err := dec.Decode(&c)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("case %d: %w", len(cases)+1, err)
			}
			cases = append(cases, c)
		}
	} else {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&cases); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w (the format is in docs/eval.md)", err)
		}
	}
	if len(cases) == 0 {
		return nil, errors.New("no cases: a case file is a YAML list of cases, or one JSON case a line (docs/eval.md)")
	}
	seen := map[string]bool{}
	for i := range cases {
		c := &cases[i]
		if c.Name == "" {
			c.Name = fmt.Sprintf("case %d", i+1)
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("case %q appears twice: give each case its own name", c.Name)
		}
		seen[c.Name] = true
		if err := c.validate(baseDir); err != nil {
			return nil, fmt.Errorf("case %q: %w", c.Name, err)
		}
	}
	return cases, nil
}

func (c *Case) validate(baseDir string) error {
	if strings.TrimSpace(c.Task) == "" {
		return errors.New("no task")
	}
	switch strings.ToUpper(c.Expect) {
	case "PASS", "FAIL":
		c.Expect = strings.ToUpper(c.Expect)
	default:
		return fmt.Errorf("expect must be PASS or FAIL, got %q", c.Expect)
	}
	for _, f := range c.Files {
		if !filepath.IsLocal(f.Path) {
			return fmt.Errorf("file path %q must be relative and stay inside the workspace", f.Path)
		}
	}
	c.rules = nil
	for _, spec := range c.Checks {
		r, err := verify.ParseRule(spec, baseDir)
		if err != nil {
			return err
		}
		c.rules = append(c.rules, r)
	}
	return nil
}
