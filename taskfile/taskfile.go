package taskfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/nightshift-dev/nightshift/internal/wholenum"

	"github.com/nightshift-dev/nightshift/runspec"
)

// Spec is one task: its name, its text and its folder, and the run's
// configuration (runspec.Spec, whose keys a task file has at its top
// level). Zero fields mean "not set here": the command's flags or defaults
// apply. Flags given on the command line override the file.
type Spec struct {
	// Name identifies the task in batch summaries; default the file name
	// or the position in a list.
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Task is the text the worker is given. Required.
	Task string `yaml:"task" json:"task"`
	// Dir is the workspace, relative to the file; batch copies it.
	Dir string `yaml:"dir,omitempty" json:"dir,omitempty"`
	// Spec is the run's configuration: the keys of runspec.Table.
	runspec.Spec `yaml:",inline"`

	// BaseDir is the folder relative paths in the spec are read from (the
	// task file's folder). Not read from the file.
	BaseDir string `yaml:"-" json:"-"`
	// lines are the lines of the keys of the file the spec was read
	// from, for naming a key a check found wrong.
	lines map[string]int
	// file names the file (and its line in a list), for the same.
	file string
}

// Validate reports what is missing or cannot run, naming the key, and
// its file and line when the spec was read from one.
func (s *Spec) Validate() error {
	if strings.TrimSpace(s.Task) == "" {
		return s.at("task", errors.New("the task text is empty (set `task:`)"))
	}
	if _, err := s.MCPServers(); err != nil {
		return s.at("mcp", err)
	}
	if s.lines["command_timeout"] > 0 && s.CommandTimeout == 0 {
		return s.at("command_timeout", errors.New("command_timeout 0s: want a positive duration such as 5m (leave it out for the default, 2m)"))
	}
	base := s.BaseDir
	if base == "" {
		base = "."
	}
	return runspec.In(s.Spec.ValidateIn(base), runspec.FromTaskFile, s.file, s.lines)
}

// at prefixes err with the file and the line of key, when known.
func (s *Spec) at(key string, err error) error {
	if n := s.lines[key]; n > 0 {
		err = fmt.Errorf("%w (line %d)", err, n)
	}
	if s.file != "" {
		return fmt.Errorf("%s: %w", s.file, err)
	}
	return err
}

// CheckFallbackOn checks a fallback_on (--fallback-on) value: "" (timing
// failures and empty answers only) or "quota" (quota failures too).
func CheckFallbackOn(v string) error {
	if v != "" && v != "quota" {
		return fmt.Errorf("fallback_on %q: the only choice is quota (timing failures and empty answers always fall back)", v)
	}
	return nil
}

// CommandDuration returns CommandTimeout as a duration; 0 when it is not
// set (the default).
func (s *Spec) CommandDuration() (time.Duration, error) {
	if s.CommandTimeout < 0 {
		return 0, fmt.Errorf("command_timeout %s: want a positive duration such as 5m", s.CommandTimeout.D())
	}
	return s.CommandTimeout.D(), nil
}

// Duration is a time.Duration written as a Go duration string ("90m").
type Duration = runspec.Duration

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
	s, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("task file %s: %w", path, err)
	}
	s.BaseDir = filepath.Dir(path)
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("task file %s: %w", path, err)
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return s, nil
}

// Parse decodes and checks one task, refusing unknown keys so a typo is
// not silently ignored; relative paths are read from ".".
func Parse(data []byte) (*Spec, error) {
	s, err := parse(data)
	if err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// parse decodes one task; its errors name the key, its line and the
// shape expected (runspec.DecodeYAML).
func parse(data []byte) (*Spec, error) {
	var s Spec
	if err := runspec.DecodeYAML(data, &s); err != nil {
		if errors.Is(err, runspec.ErrEmpty) {
			return nil, errors.New("the file is empty: a task file needs at least `task: TEXT`")
		}
		return nil, err
	}
	if err := wholenum.Check(data, &s); err != nil {
		return nil, err
	}
	s.lines = runspec.KeyLines(data)
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
		if err := s.Validate(); err != nil {
			if s.Name != "" {
				return nil, fmt.Errorf("tasks %s: task %s: %w", path, s.Name, err)
			}
			return nil, fmt.Errorf("tasks %s: task %d: %w", path, i+1, err)
		}
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
		// A JSON line is a YAML document: one decoder, one set of keys,
		// and errors in the file's terms.
		var s Spec
		if err := runspec.DecodeYAML(line, &s); err != nil {
			return nil, fmt.Errorf("line %d: %s", n, strings.TrimPrefix(err.Error(), "line 1: "))
		}
		s.lines = map[string]int{}
		for k := range runspec.KeyLines(line) {
			s.lines[k] = n
		}
		specs = append(specs, &s)
	}
	return specs, sc.Err()
}

func parseYAMLList(data []byte) ([]*Spec, error) {
	// The document's shape says which form it is, so a misspelt key is
	// reported against that form ("unknown key max_step"), not as the
	// other form's mismatch.
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var specs []*Spec
	var items []*yaml.Node
	switch {
	case len(doc.Content) == 1 && doc.Content[0].Kind == yaml.SequenceNode:
		if err := runspec.DecodeYAML(data, &specs); err != nil {
			return nil, err
		}
		if err := wholenum.Check(data, &specs); err != nil {
			return nil, err
		}
		items = doc.Content[0].Content
	case len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode:
		var wrapped struct {
			Tasks []*Spec `yaml:"tasks"`
		}
		if err := runspec.DecodeYAML(data, &wrapped); err != nil {
			return nil, err
		}
		if err := wholenum.Check(data, &wrapped); err != nil {
			return nil, err
		}
		specs = wrapped.Tasks
		if m := doc.Content[0]; len(m.Content) == 2 && m.Content[1].Kind == yaml.SequenceNode {
			items = m.Content[1].Content
		}
	default:
		return nil, errors.New("want a list of tasks or {tasks: [...]}")
	}
	for i, s := range specs {
		if s == nil {
			return nil, fmt.Errorf("task %d is empty", i+1)
		}
		if i < len(items) {
			s.lines = runspec.MappingLines(items[i])
		}
	}
	return specs, nil
}
