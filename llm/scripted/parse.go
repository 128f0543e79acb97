package scripted

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"

	"go.yaml.in/yaml/v3"

	"github.com/nightshift-dev/nightshift/llm"
)

// Strings is a list of strings that also accepts a single string in YAML,
// so `contains: PASS` reads like `contains: [PASS]`.
type Strings []string

// UnmarshalYAML accepts a scalar or a sequence of scalars.
func (s *Strings) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*s = Strings{n.Value}
		return nil
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		return err
	}
	*s = list
	return nil
}

// Parse reads a scenario from YAML (or JSON, which is YAML) and validates it.
// Unknown keys are errors, so a misspelt field never silently does nothing.
func Parse(data []byte) (*Scenario, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	sc := new(Scenario)
	if err := dec.Decode(sc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("scripted: scenario is empty")
		}
		return nil, fmt.Errorf("scripted: scenario: %w", err)
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return sc, nil
}

// Load reads and parses the scenario file at path.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scripted: %w", err)
	}
	sc, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sc, nil
}

// Validate checks the scenario, fills defaults (script names, the shorthand
// Turns moved into a "main" script) and compiles its regular expressions.
// Errors name the script and turn. Parse calls it; call it yourself for a
// Scenario built in Go.
func (sc *Scenario) Validate() error {
	if len(sc.Turns) > 0 {
		if len(sc.Scripts) > 0 {
			return errors.New("scripted: scenario has both turns and scripts; put the turns in a script")
		}
		sc.Scripts = []Script{{Name: "main", Turns: sc.Turns}}
		sc.Turns = nil
	}
	if len(sc.Scripts) == 0 {
		return errors.New("scripted: scenario has no turns")
	}
	if err := sc.Server.validate(); err != nil {
		return fmt.Errorf("scripted: %w", err)
	}
	if err := sc.Down.validate(); err != nil {
		return fmt.Errorf("scripted: %w", err)
	}
	for i := range sc.Scripts {
		s := &sc.Scripts[i]
		if s.Name == "" {
			s.Name = fmt.Sprintf("script%d", i+1)
		}
		if err := s.validate(); err != nil {
			return fmt.Errorf("scripted: script %s: %w", s.Name, err)
		}
	}
	sc.validated = true
	return nil
}

func (s *Script) validate() error {
	if err := s.When.compile(); err != nil {
		return fmt.Errorf("when: %w", err)
	}
	if len(s.Turns) == 0 {
		return errors.New("has no turns")
	}
	for i := range s.Turns {
		if err := s.Turns[i].validate(); err != nil {
			return fmt.Errorf("turn %d (position %d): %w", i+1, i, err)
		}
	}
	return nil
}

func (t *Turn) validate() error {
	forms := 0
	if !t.Reply.isZero() {
		forms++
	}
	if len(t.Attempts) > 0 {
		forms++
	}
	if len(t.Cases) > 0 {
		forms++
	}
	if forms != 1 {
		return errors.New("a turn needs exactly one of: reply fields (text, tool_calls, status, ...), attempts, or cases")
	}
	if len(t.Cases) == 0 {
		return validateReplies(&t.Reply, t.Attempts)
	}
	for i := range t.Cases {
		c := &t.Cases[i]
		if err := c.When.compile(); err != nil {
			return fmt.Errorf("case %d: when: %w", i+1, err)
		}
		if !c.Reply.isZero() && len(c.Attempts) > 0 {
			return fmt.Errorf("case %d: has both reply fields and attempts", i+1)
		}
		if c.Reply.isZero() && len(c.Attempts) == 0 {
			return fmt.Errorf("case %d: has no reply", i+1)
		}
		if err := validateReplies(&c.Reply, c.Attempts); err != nil {
			return fmt.Errorf("case %d: %w", i+1, err)
		}
	}
	return nil
}

// validateReplies checks the inline reply when there are no attempts, else
// every attempt.
func validateReplies(inline *Reply, attempts []Reply) error {
	if len(attempts) == 0 {
		return inline.validate()
	}
	for i := range attempts {
		if err := attempts[i].validate(); err != nil {
			return fmt.Errorf("attempt %d: %w", i+1, err)
		}
	}
	return nil
}

// isZero reports whether no reply field is set (the inline form is absent).
func (r *Reply) isZero() bool {
	return r.Text == "" && len(r.ToolCalls) == 0 && r.Stop == "" && !r.Empty &&
		r.Usage == nil && r.Status == 0 && len(r.Headers) == 0 && r.Error == nil &&
		!r.Drop && r.StreamError == nil && r.Delay == 0 && r.Markup == "" && r.Cut == 0
}

var validStops = map[llm.StopReason]bool{
	llm.EndTurn: true, llm.ToolUseStop: true, llm.MaxTokens: true,
	llm.Refusal: true, llm.StopSequence: true,
}

func (r *Reply) validate() error {
	content := r.Text != "" || len(r.ToolCalls) > 0
	switch {
	case r.Stop != "" && !validStops[r.Stop]:
		return fmt.Errorf("unknown stop %q (want end_turn, tool_use, max_tokens, refusal or stop_sequence)", r.Stop)
	case r.Delay < 0:
		return fmt.Errorf("negative delay %v", r.Delay)
	case r.Status != 0 && (r.Status < 400 || r.Status > 599):
		return fmt.Errorf("status %d is not an error status (400-599)", r.Status)
	case r.Status != 0 && (content || r.Empty || r.Drop || r.Stop != ""):
		return errors.New("an error reply (status) cannot also have text, tool_calls, empty, stop or drop")
	case r.Status == 0 && (len(r.Headers) > 0 || r.Error != nil):
		return errors.New("headers and error need a status")
	case r.Empty && (content || (r.Stop != "" && r.Stop != llm.MaxTokens)):
		return errors.New("an empty reply cannot have text, tool_calls or a stop other than max_tokens")
	case r.Markup != "" && markups[r.Markup] == nil:
		return fmt.Errorf("unknown markup %q (want qwen, mistral, phi or llama)", r.Markup)
	case r.Markup != "" && len(r.ToolCalls) == 0:
		return errors.New("markup needs tool_calls to write")
	case r.Cut < 0:
		return fmt.Errorf("negative cut %d", r.Cut)
	case r.Cut > 0 && (r.Status != 0 || r.Empty || !content):
		return errors.New("cut needs text or tool_calls to cut, and no status or empty")
	case r.StreamError != nil && (r.Status != 0 || r.Drop || r.Empty):
		return errors.New("stream_error cannot go with status, drop or empty")
	case r.Status == 0 && !r.Drop && !r.Empty && r.StreamError == nil && !content:
		return errors.New("reply has no content: give text, tool_calls, empty: true, status, drop or stream_error")
	case r.Usage != nil && (r.Usage.Input < 0 || r.Usage.Output < 0 || r.Usage.CacheWrite < 0 || r.Usage.CacheRead < 0):
		return errors.New("negative usage")
	case r.Usage != nil && r.Usage.Input != 0 && r.Usage.CacheWrite+r.Usage.CacheRead > r.Usage.Input:
		return errors.New("usage: cache_write and cache_read are part of input and cannot exceed it")
	}
	for i, tc := range r.ToolCalls {
		if tc.Name == "" {
			return fmt.Errorf("tool call %d has no name", i+1)
		}
		if tc.RawInput != "" && tc.Input != nil {
			return fmt.Errorf("tool call %d (%s) has both input and raw_input", i+1, tc.Name)
		}
		if tc.Input != nil {
			if _, err := json.Marshal(tc.Input); err != nil {
				return fmt.Errorf("tool call %d (%s): input cannot be sent as JSON: %v", i+1, tc.Name, err)
			}
		}
	}
	return nil
}

func (m *Match) compile() error {
	if m == nil {
		return nil
	}
	switch m.In {
	case "", "all", "last", "system":
	default:
		return fmt.Errorf("unknown in %q (want all, last or system)", m.In)
	}
	if m.Matches != "" {
		re, err := regexp.Compile(m.Matches)
		if err != nil {
			return fmt.Errorf("bad regexp: %w", err)
		}
		m.re = re
	}
	return nil
}
