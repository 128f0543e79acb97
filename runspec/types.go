package runspec

import (
	"encoding/json"
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/tool/mcp"
)

// Duration is a time.Duration written as a Go duration string ("90m",
// "2h30m") in YAML and JSON alike, so that a JSON-lines task list says
// "timeout": "1h" as a YAML file does.
type Duration time.Duration

// UnmarshalYAML reads a duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil || n.Kind != yaml.ScalarNode {
		return &shapeError{line: n.Line, col: n.Column, value: n.Value, want: "a duration: write 90m or 2h30m"}
	}
	*d = Duration(v)
	return nil
}

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"90m\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration (write 90m, 2h)", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// MarshalYAML writes the duration string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// D is the duration as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// List is a list of strings in which one string stands for a list of
// one: `checks: exists:a.md` is `checks: [exists:a.md]`.
type List []string

// UnmarshalYAML reads a list of strings, or one string.
func (l *List) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			*l = nil
			return nil
		}
		*l = List{n.Value}
		return nil
	case yaml.SequenceNode:
		out := make(List, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return &shapeError{line: c.Line, col: c.Column, want: "a list of strings (or one string)"}
			}
			out = append(out, c.Value)
		}
		*l = out
		return nil
	}
	return &shapeError{line: n.Line, col: n.Column, want: "a list of strings (or one string)"}
}

// UnmarshalJSON reads a list of strings, or one string.
func (l *List) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*l = List{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("want a list of strings (or one string)")
	}
	*l = many
	return nil
}

// MCPServer is one server of a task's or a pipeline's mcp: section.
type MCPServer struct {
	// Command starts a stdio server.
	Command Command `yaml:"command,omitempty" json:"command,omitempty"`
	// URL is a streamable HTTP server's endpoint.
	URL string `yaml:"url,omitempty" json:"url,omitempty"`
	// Class is its tools' class, Classes a class per tool (by the
	// server's name for it); default danger.
	Class   tool.Class            `yaml:"class,omitempty" json:"class,omitempty"`
	Classes map[string]tool.Class `yaml:"classes,omitempty" json:"classes,omitempty"`
	// Env names variables of nightshift's environment a stdio server
	// gets beside the allow-listed ones (PATH, HOME, ...) and --env's:
	// a credential reaches a server only this way, with a warning.
	Env []string `yaml:"env,omitempty" json:"env,omitempty"`
	// TrustWorkspace lets a stdio server start what the workspace holds
	// (a program, a script, a module there); default false: refused
	// (mcp.Server.TrustWorkspace).
	TrustWorkspace bool `yaml:"trust_workspace,omitempty" json:"trust_workspace,omitempty"`
}

// Command is a command's words: a list, or one line that is split as a
// shell would split it (quotes and backslashes; nothing is expanded).
type Command []string

// UnmarshalYAML reads a list of words or one line.
func (c *Command) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		words, err := mcp.SplitCommand(n.Value)
		if err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		*c = words
		return nil
	}
	var words []string
	if err := n.Decode(&words); err != nil {
		return err
	}
	*c = words
	return nil
}

// UnmarshalJSON reads a list of words or one line.
func (c *Command) UnmarshalJSON(b []byte) error {
	var line string
	if json.Unmarshal(b, &line) == nil {
		words, err := mcp.SplitCommand(line)
		*c = words
		return err
	}
	var words []string
	err := json.Unmarshal(b, &words)
	*c = words
	return err
}
