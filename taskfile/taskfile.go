package taskfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/nightshift-dev/nightshift/internal/wholenum"

	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/sandbox"
)

// Spec is one task. Zero fields mean "not set here": the command's flags or
// defaults apply. Flags given on the command line override the file.
type Spec struct {
	// Name identifies the task in batch summaries; default the file name
	// or the position in a list.
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Task is the text the worker is given. Required.
	Task string `yaml:"task" json:"task"`
	// Dir is the workspace, relative to the file; batch copies it.
	Dir string `yaml:"dir,omitempty" json:"dir,omitempty"`
	// Checks are verifier rules, as for --check.
	Checks []string `yaml:"checks,omitempty" json:"checks,omitempty"`
	// Rubric is extra criteria for the judge.
	Rubric string `yaml:"rubric,omitempty" json:"rubric,omitempty"`
	// NoJudge leaves only the rules.
	NoJudge bool `yaml:"no_judge,omitempty" json:"no_judge,omitempty"`
	// JudgeModel is MODEL or PROVIDER:MODEL.
	JudgeModel string `yaml:"judge_model,omitempty" json:"judge_model,omitempty"`
	// OutputSchema is a JSON Schema file the final answer must satisfy,
	// relative to the task file.
	OutputSchema string `yaml:"output_schema,omitempty" json:"output_schema,omitempty"`
	// Approve holds gate policies, as for --approve.
	Approve []string `yaml:"approve,omitempty" json:"approve,omitempty"`
	// Sandbox is how commands are confined, as for --sandbox: auto,
	// bwrap or none; empty means the flag's (auto).
	Sandbox string `yaml:"sandbox,omitempty" json:"sandbox,omitempty"`
	// SandboxNet lets sandboxed commands reach the network, as
	// --sandbox-net does.
	SandboxNet bool `yaml:"sandbox_net,omitempty" json:"sandbox_net,omitempty"`
	// Env names variables commands get on top of the allow-list, as
	// --env does.
	Env []string `yaml:"env,omitempty" json:"env,omitempty"`
	// CommandTimeout bounds each command, as --command-timeout does:
	// "5m"; empty means the flag's (2m).
	CommandTimeout string `yaml:"command_timeout,omitempty" json:"command_timeout,omitempty"`
	// MaxFileSize is the file tools' size limit, as --max-file-size
	// does: "256MiB"; empty means the flag's (256 MiB).
	MaxFileSize string `yaml:"max_file_size,omitempty" json:"max_file_size,omitempty"`
	// Limits.
	MaxSteps        int  `yaml:"max_steps,omitempty" json:"max_steps,omitempty"`
	MaxVerifyRounds int  `yaml:"max_verify_rounds,omitempty" json:"max_verify_rounds,omitempty"`
	MaxTokens       int  `yaml:"max_tokens,omitempty" json:"max_tokens,omitempty"`
	Retries         *int `yaml:"retries,omitempty" json:"retries,omitempty"`
	// LoopLimit is how many identical tool calls in a row warn the
	// model; one more ends the run (-1: no loop detection).
	LoopLimit *int `yaml:"loop_limit,omitempty" json:"loop_limit,omitempty"`

	// Budgets and time, as for --budget-usd, --budget-tokens and
	// --timeout: a run that reaches one pauses, resumable.
	BudgetUSD    float64  `yaml:"budget_usd,omitempty" json:"budget_usd,omitempty"`
	BudgetTokens int64    `yaml:"budget_tokens,omitempty" json:"budget_tokens,omitempty"`
	Timeout      Duration `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	// ModelsFile overrides and extends the model table (prices, context
	// windows), relative to the task file, as --models does.
	ModelsFile string `yaml:"models_file,omitempty" json:"models_file,omitempty"`
	// RollbackOnInterrupt rolls an interrupted run back instead of
	// pausing it, as --rollback-on-interrupt does.
	RollbackOnInterrupt bool `yaml:"rollback_on_interrupt,omitempty" json:"rollback_on_interrupt,omitempty"`
	// MCP are MCP servers whose tools the run gets, by name: each has a
	// command (stdio: a list of words, or one line split as a shell
	// would; a relative program path is read from the task file's
	// folder) or a url (streamable HTTP), and a class and classes per
	// tool as for --mcp-class (default danger). See MCPServers.
	MCP map[string]MCPServer `yaml:"mcp,omitempty" json:"mcp,omitempty"`

	// Long conversations (README, "Long runs"), as --no-cache,
	// --context-window, --fallback-model and --fallback-on: prompt caching
	// off; the context window that compaction keeps the history within
	// (default the model table's); a second model, MODEL or
	// PROVIDER:MODEL, for calls the worker's cannot answer; and "quota"
	// to fall back on quota failures too.
	NoCache       bool   `yaml:"no_cache,omitempty" json:"no_cache,omitempty"`
	ContextWindow int    `yaml:"context_window,omitempty" json:"context_window,omitempty"`
	FallbackModel string `yaml:"fallback_model,omitempty" json:"fallback_model,omitempty"`
	FallbackOn    string `yaml:"fallback_on,omitempty" json:"fallback_on,omitempty"`

	// BaseDir is the folder relative paths in the spec are read from (the
	// task file's folder). Not read from the file.
	BaseDir string `yaml:"-" json:"-"`
}

// Validate reports what is missing.
func (s *Spec) Validate() error {
	if strings.TrimSpace(s.Task) == "" {
		return errors.New("the task text is empty (set `task:`)")
	}
	for _, l := range []struct {
		key      string
		negative bool
	}{
		{"max_steps", s.MaxSteps < 0}, {"max_tokens", s.MaxTokens < 0}, {"max_verify_rounds", s.MaxVerifyRounds < 0},
		{"budget_usd", s.BudgetUSD < 0}, {"budget_tokens", s.BudgetTokens < 0}, {"timeout", s.Timeout < 0},
		{"context_window", s.ContextWindow < 0},
	} {
		if l.negative {
			return fmt.Errorf("%s must not be negative", l.key)
		}
	}
	if _, err := s.MCPServers(); err != nil {
		return err
	}
	if _, err := sandbox.ParseMode(s.Sandbox); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if _, err := s.CommandDuration(); err != nil {
		return err
	}
	for _, a := range s.Approve {
		if err := gate.CheckSpec(a); err != nil {
			return fmt.Errorf("approve %q: %w", a, err)
		}
	}
	return CheckFallbackOn(s.FallbackOn)
}

// CheckFallbackOn checks a fallback_on (--fallback-on) value: "" (timing
// failures and empty answers only) or "quota" (quota failures too).
func CheckFallbackOn(v string) error {
	if v != "" && v != "quota" {
		return fmt.Errorf("fallback_on %q: the only choice is quota (timing failures and empty answers always fall back)", v)
	}
	return nil
}

// CommandDuration returns CommandTimeout as a duration; 0 when it is empty.
func (s *Spec) CommandDuration() (time.Duration, error) {
	if s.CommandTimeout == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s.CommandTimeout)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("command_timeout %q: want a positive duration such as 5m", s.CommandTimeout)
	}
	return d, nil
}

// Load reads one task file (YAML; JSON is YAML too).
func Load(path string) (*Spec, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("task file %s is a folder: name a YAML task file (the format is in README.md, Task files); batch --tasks takes a folder of them", path)
	}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("task file %s: no such file: check the path (the format is in README.md, Task files)", path)
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("task file %s cannot be read (permission denied): make it readable, or name another", path)
	case err != nil:
		return nil, fmt.Errorf("task file %s: %w", path, err)
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("task file %s: %w", path, err)
	}
	s.BaseDir = filepath.Dir(path)
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return s, nil
}

// Parse decodes one task, refusing unknown keys so a typo is not silently
// ignored.
func Parse(data []byte) (*Spec, error) {
	var s Spec
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			// yaml says "EOF" for a file with nothing in it.
			return nil, errors.New("the file is empty: a task file needs at least `task: TEXT`")
		}
		return nil, err
	}
	if err := wholenum.Check(data, &s); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// LoadList reads many tasks: a folder of task files (*.yaml, *.yml,
// *.json, sorted by name), a JSON-lines file (*.jsonl), or a YAML file
// holding a list of tasks or {tasks: [...]}.
func LoadList(path string) ([]*Spec, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	if fi.IsDir() {
		return loadDir(path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	var specs []*Spec
	if strings.HasSuffix(path, ".jsonl") {
		specs, err = parseJSONLines(data)
	} else {
		specs, err = parseYAMLList(data)
	}
	if err != nil {
		return nil, fmt.Errorf("tasks %s: %w", path, err)
	}
	for i, s := range specs {
		s.BaseDir = filepath.Dir(path)
		if s.Name == "" {
			s.Name = fmt.Sprintf("task-%d", i+1)
		}
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("tasks %s: no tasks", path)
	}
	return specs, nil
}

func loadDir(dir string) ([]*Spec, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	var names []string
	for _, e := range ents {
		switch filepath.Ext(e.Name()) {
		case ".yaml", ".yml", ".json":
			if !e.IsDir() {
				names = append(names, e.Name())
			}
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("tasks: no task files (*.yaml, *.yml, *.json) in %s", dir)
	}
	specs := make([]*Spec, 0, len(names))
	for _, n := range names {
		s, err := Load(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	return specs, nil
}

func parseJSONLines(data []byte) ([]*Spec, error) {
	var specs []*Spec
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var s Spec
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		specs = append(specs, &s)
	}
	return specs, sc.Err()
}

func parseYAMLList(data []byte) ([]*Spec, error) {
	// The document's shape says which form it is, so a misspelt key is
	// reported against that form ("field max_step not found"), not as the
	// other form's mismatch.
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var specs []*Spec
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	switch {
	case len(doc.Content) == 1 && doc.Content[0].Kind == yaml.SequenceNode:
		if err := dec.Decode(&specs); err != nil {
			return nil, err
		}
		if err := wholenum.Check(data, &specs); err != nil {
			return nil, err
		}
	case len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode:
		var wrapped struct {
			Tasks []*Spec `yaml:"tasks"`
		}
		if err := dec.Decode(&wrapped); err != nil {
			return nil, err
		}
		if err := wholenum.Check(data, &wrapped); err != nil {
			return nil, err
		}
		specs = wrapped.Tasks
	default:
		return nil, errors.New("want a list of tasks or {tasks: [...]}")
	}
	for i, s := range specs {
		if s == nil {
			return nil, fmt.Errorf("task %d is empty", i+1)
		}
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("task %d: %w", i+1, err)
		}
	}
	return specs, nil
}
