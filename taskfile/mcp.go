package taskfile

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/tool/mcp"
)

// MCPServer is one server of a task's mcp: section.
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

// MCPServers returns the spec's MCP servers sorted by name, each named
// and checked, a relative program path (one with a slash, such as
// ./server) read from the task file's folder.
func (s *Spec) MCPServers() ([]mcp.Server, error) { return Servers(s.MCP, s.BaseDir) }

// Servers returns the servers of an mcp: section, sorted by name, each
// named and checked, a relative program path read from baseDir.
func Servers(section map[string]MCPServer, baseDir string) ([]mcp.Server, error) {
	var out []mcp.Server
	for _, name := range slices.Sorted(maps.Keys(section)) {
		in := section[name]
		srv := mcp.Server{Name: name, Command: slices.Clone(in.Command), URL: in.URL, Class: in.Class, Classes: in.Classes, Env: slices.Clone(in.Env), TrustWorkspace: in.TrustWorkspace}
		if len(srv.Command) > 0 {
			if p := srv.Command[0]; filepath.Base(p) != p && !filepath.IsAbs(p) {
				abs, err := filepath.Abs(filepath.Join(baseDir, p))
				if err != nil {
					return nil, err
				}
				srv.Command[0] = abs
			}
		}
		if err := srv.Check(); err != nil {
			return nil, fmt.Errorf("mcp: %w", err)
		}
		out = append(out, srv)
	}
	return out, nil
}
