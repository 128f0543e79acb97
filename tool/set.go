package tool

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
	"github.com/nightshift-dev/nightshift/llm"
)

// Config tunes a Set. The zero value is the default.
type Config struct {
	// Timeout bounds one call; the call's context ends when it passes and
	// the model gets a transient error result. Zero means 60s. A tool
	// with a timeout of its own (a Timeouter, such as run_command) gets
	// that one, plus TimeoutGrace, when it is longer.
	Timeout time.Duration
	// Redact, when set, rewrites every result's content before the model
	// (or anyone) reads it: the run's redactor replaces the values of
	// credentials with [redacted]. Nil leaves results as they are.
	Redact func(string) string
}

// Timeouter is a tool that bounds its own calls, and reports what the
// caller got so far when the bound passes (run_command keeps a command's
// output up to the cut). The Set then gives its calls that long.
type Timeouter interface {
	Timeout() time.Duration
}

// TimeoutGrace is what a Timeouter's call gets beyond its own timeout, so
// that the tool's timeout, which keeps the partial result, fires first.
const TimeoutGrace = 10 * time.Second

// DefaultTimeout is the per-call timeout when Config.Timeout is zero.
const DefaultTimeout = 60 * time.Second

// Set holds the tools of a run. It validates every call's input against
// the tool's JSON Schema, compiled once by NewSet, and turns every way a
// call can go wrong (an invented name, bad input, a panic, a timeout) into
// an error result the model can read. It is safe for concurrent use.
type Set struct {
	entries map[string]entry
	names   []string // sorted
	timeout atomic.Int64
	redact  atomic.Pointer[func(string) string]
}

type entry struct {
	tool Tool
	spec llm.ToolSpec
	// schema is the compiled input schema: compiled by NewSet, or at the
	// first call of a Prechecked tool.
	schema func() (*jsonschema.Resolved, error)
}

// Prechecked is a Tool whose input schema is a constant that its own
// package's tests compile (with CheckSchema): NewSet compiles it at the
// tool's first call instead of at once, so that a run pays only for the
// schemas of the tools it calls (a run's six built-in tools cost each
// start 240 KB and 0.4 ms in json.Unmarshal and Resolve). A tool whose
// schema is made at run time (an MCP server's, a Func's) must not be
// Prechecked: NewSet's refusal is what stops a run with a broken tool
// before it starts.
type Prechecked interface {
	Tool
	// SchemaPrechecked marks the tool; it does nothing.
	SchemaPrechecked()
}

// CheckSchema compiles t's input schema as NewSet does, for the tests
// of a Prechecked tool.
func CheckSchema(t Tool) error {
	_, err := compile(t.Spec().InputSchema)
	return err
}

// namePattern is what both providers accept as a tool name.
var namePattern = lazyregexp.New(`^[a-zA-Z0-9_-]{1,64}$`)

// NewSet returns a Set of tools. A duplicate or malformed name, an
// invalid class, or an input schema that is not a valid JSON Schema of an
// object is an error: a broken tool must stop the run before it starts,
// not surface as a confusing tool failure in the middle of it.
func NewSet(tools ...Tool) (*Set, error) {
	s := &Set{entries: make(map[string]entry, len(tools))}
	for _, t := range tools {
		spec := t.Spec()
		if !namePattern.MatchString(spec.Name) {
			return nil, fmt.Errorf("tool: name %q must be 1 to 64 letters, digits, _ or -", spec.Name)
		}
		if _, dup := s.entries[spec.Name]; dup {
			return nil, fmt.Errorf("tool: %s: registered twice", spec.Name)
		}
		if c := t.Class(); !c.Valid() {
			return nil, fmt.Errorf("tool: %s: invalid class %q", spec.Name, c)
		}
		if se, ok := t.(schemaErrorer); ok && se.schemaError() != nil {
			return nil, fmt.Errorf("tool: %s: %w", spec.Name, se.schemaError())
		}
		var schema func() (*jsonschema.Resolved, error)
		if _, ok := t.(Prechecked); ok {
			raw := spec.InputSchema
			schema = sync.OnceValues(func() (*jsonschema.Resolved, error) { return compile(raw) })
		} else {
			r, err := compile(spec.InputSchema)
			if err != nil {
				return nil, fmt.Errorf("tool: %s: input schema: %w", spec.Name, err)
			}
			schema = func() (*jsonschema.Resolved, error) { return r, nil }
		}
		s.entries[spec.Name] = entry{tool: t, spec: spec, schema: schema}
		s.names = append(s.names, spec.Name)
	}
	slices.Sort(s.names)
	return s, nil
}

func compile(raw json.RawMessage) (*jsonschema.Resolved, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("missing")
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(raw, &sch); err != nil {
		return nil, err
	}
	// Both providers require the input to be an object.
	if sch.Type != "object" && !slices.Equal(sch.Types, []string{"object"}) {
		return nil, fmt.Errorf(`type is %q, want "object"`, sch.Type)
	}
	return sch.Resolve(nil)
}

// SetConfig replaces the Set's configuration; calls already running keep
// the timeout they started with.
func (s *Set) SetConfig(c Config) {
	s.timeout.Store(int64(c.Timeout))
	if c.Redact != nil {
		s.redact.Store(&c.Redact)
	} else {
		s.redact.Store(nil)
	}
}

// Redact returns text with the credentials replaced, as every result's
// content is (Config.Redact); text itself when the Set has no redactor.
// The agent puts a call's input through it before an event cuts it to a
// length: a key cut first is a key no redactor matches whole.
func (s *Set) Redact(text string) string {
	if s == nil {
		return text
	}
	if f := s.redact.Load(); f != nil {
		return (*f)(text)
	}
	return text
}

// Timeout returns the per-call timeout in force.
func (s *Set) Timeout() time.Duration {
	return cmp.Or(time.Duration(s.timeout.Load()), DefaultTimeout)
}

// timeoutFor returns the timeout of a call of t: the Set's, or the
// tool's own plus TimeoutGrace when that is longer.
func (s *Set) timeoutFor(t Tool) time.Duration {
	d := s.Timeout()
	if tt, ok := t.(Timeouter); ok && tt.Timeout() > 0 {
		d = max(d, tt.Timeout()+TimeoutGrace)
	}
	return d
}

// Specs returns the tools' specifications sorted by name, so that the
// request (and a provider's prompt cache) is the same from call to call.
func (s *Set) Specs() []llm.ToolSpec {
	out := make([]llm.ToolSpec, len(s.names))
	for i, n := range s.names {
		out[i] = s.entries[n].spec
	}
	return out
}

// Get returns the tool called name.
func (s *Set) Get(name string) (Tool, bool) {
	e, ok := s.entries[name]
	return e.tool, ok
}

// Names returns the tools' names, sorted.
func (s *Set) Names() []string { return slices.Clone(s.names) }

// With returns a new Set of s's tools and the tools given, with s's
// configuration; s is unchanged. A run adds a tool this way when it needs
// one midway (read_result, once a result was cut).
func (s *Set) With(tools ...Tool) (*Set, error) {
	all := make([]Tool, 0, len(s.names)+len(tools))
	for _, n := range s.names {
		all = append(all, s.entries[n].tool)
	}
	out, err := NewSet(append(all, tools...)...)
	if err != nil {
		return nil, err
	}
	out.timeout.Store(s.timeout.Load())
	out.redact.Store(s.redact.Load())
	return out, nil
}
