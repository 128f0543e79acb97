package taskfile

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/tool/mcp"
)

// MCPServer is one server of a task's mcp: section (runspec.MCPServer).
type MCPServer = runspec.MCPServer

// Command is a command's words: a list, or one line split as a shell
// would (runspec.Command).
type Command = runspec.Command

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
