package mcp

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
	"github.com/nightshift-dev/nightshift/tool"
)

// ErrConfig marks MCP servers that cannot be used as given: a bad name or
// class, a server that does not start, tools whose names collide. Nothing
// ran; the command treats it as a usage error (exit 2).
var ErrConfig = errors.New("MCP servers unusable as given")

// configError wraps a message as an ErrConfig.
func configError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...)
}

// Server is one MCP server whose tools a run gets. Exactly one of Command
// and URL is set.
type Server struct {
	// Name prefixes its tools' names (NAME__tool): letters, digits, - and
	// single _, at most 32 characters, unique in the run.
	Name string `yaml:"-" json:"-"`
	// Command starts a server that speaks MCP on its stdin and stdout:
	// the program and its arguments. Its program is found before the run
	// (a path, or a name in PATH) and it starts in a folder of its own
	// outside the workspace, with the workspace as its MCP root, the
	// environment of Config.Env and Env, under Config.Sandbox when that
	// is bwrap; it is stopped when the run ends.
	Command []string `yaml:"command,omitempty" json:"command,omitempty"`
	// TrustWorkspace lets a stdio server start what the workspace
	// holds: a program there (./node_modules/.bin/x, a srv.py for
	// python3 -m srv), a file its arguments name, a folder its variables
	// name. Without it such a server is refused (ErrInWorkspace): a run's
	// commands and tools can change what is there, and nightshift would
	// start it again, with the user's rights. With it, the server starts
	// in the workspace folder, as it asks. Default false.
	TrustWorkspace bool `yaml:"trust_workspace,omitempty" json:"trust_workspace,omitempty"`
	// URL is a server's streamable HTTP endpoint (http:// or https://).
	URL string `yaml:"url,omitempty" json:"url,omitempty"`
	// Class is the side-effect class of the server's tools for the gate
	// and the journal; default danger, since nightshift cannot know what a
	// remote tool does.
	Class tool.Class `yaml:"class,omitempty" json:"class,omitempty"`
	// Classes gives single tools another class, by the server's name for
	// the tool (create_issue); a name that is not one of the server's
	// tools is an ErrConfig.
	Classes map[string]tool.Class `yaml:"classes,omitempty" json:"classes,omitempty"`
	// Env names variables of nightshift's environment (Config.Environ)
	// that a stdio server gets on top of Config.Env: GITHUB_TOKEN for a
	// GitHub server. A credential is given only this way, and Open says so
	// in a warning. A variable that is not set is left out.
	Env []string `yaml:"env,omitempty" json:"env,omitempty"`
}

// Sep joins a server's name to its tools' names.
const Sep = "__"

// maxName bounds a server's name, so that its tools keep room for their
// own names within 64 characters.
const maxName = 32

// varPattern is what Env may name.
var varPattern = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// namePattern is a server's name: no "__", which separates it from the
// tool's name in NAME__tool and in --mcp-class keys.
var namePattern = lazyregexp.New(`^[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*$`)

// Check reports what is wrong with s, as an ErrConfig.
func (s Server) Check() error {
	if len(s.Name) > maxName || !namePattern.MatchString(s.Name) {
		return configError("server name %q: use letters, digits, - and single _, at most %d characters (it prefixes its tools: NAME__tool)", s.Name, maxName)
	}
	switch {
	case len(s.Command) == 0 && s.URL == "":
		return configError("server %s: give a command (stdio) or a url (streamable HTTP)", s.Name)
	case len(s.Command) > 0 && s.URL != "":
		return configError("server %s: give a command or a url, not both", s.Name)
	case s.URL != "" && !isURL(s.URL):
		return configError("server %s: url %q must start with http:// or https://", s.Name, s.URL)
	}
	for _, n := range s.Env {
		if !varPattern.MatchString(n) {
			return configError("server %s: env %q: want the name of a variable, like GITHUB_TOKEN", s.Name, n)
		}
	}
	if len(s.Env) > 0 && s.URL != "" {
		return configError("server %s: env is for a server nightshift starts (a command), not one at a url", s.Name)
	}
	if s.TrustWorkspace && s.URL != "" {
		return configError("server %s: trust_workspace is for a server nightshift starts (a command), not one at a url", s.Name)
	}
	if s.Class != "" && !s.Class.Valid() {
		return configError("server %s: class %q: want read, write or danger", s.Name, s.Class)
	}
	for t, c := range s.Classes {
		if !c.Valid() {
			return configError("server %s: class %q of tool %s: want read, write or danger", s.Name, c, t)
		}
	}
	return nil
}

// class is the class of the server's tool called name (its own name, or
// its mapped one).
func (s Server) class(name, mapped string) tool.Class {
	if c, ok := s.Classes[name]; ok {
		return c
	}
	if c, ok := s.Classes[mapped]; ok {
		return c
	}
	if s.Class != "" {
		return s.Class
	}
	return tool.Danger
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// Parse reads one --mcp value: NAME=URL for a streamable HTTP server,
// NAME=COMMAND [ARG...] for a stdio one, the command split into words as
// a shell would (single and double quotes, backslash escapes; nothing is
// expanded).
func Parse(spec string) (Server, error) {
	name, rest, ok := strings.Cut(spec, "=")
	name, rest = strings.TrimSpace(name), strings.TrimSpace(rest)
	if !ok || name == "" || rest == "" {
		return Server{}, configError("--mcp %q: want NAME=COMMAND [ARG...] or NAME=URL, for example fs=\"npx -y @modelcontextprotocol/server-filesystem .\"", spec)
	}
	s := Server{Name: name}
	if isURL(rest) {
		s.URL = rest
	} else {
		words, err := SplitCommand(rest)
		if err != nil {
			return Server{}, configError("--mcp %s: %v", name, err)
		}
		s.Command = words
	}
	return s, s.Check()
}

// SetClass applies one --mcp-class rule, SERVER=CLASS or
// SERVER__TOOL=CLASS, to the server it names in servers.
func SetClass(servers []Server, rule string) error {
	key, value, ok := strings.Cut(rule, "=")
	key, value = strings.TrimSpace(key), strings.ToLower(strings.TrimSpace(value))
	c := tool.Class(value)
	if !ok || key == "" || !c.Valid() {
		return configError("--mcp-class %q: want SERVER=CLASS or SERVER__TOOL=CLASS, where CLASS is read, write or danger, for example github=read", rule)
	}
	server, toolName, perTool := strings.Cut(key, Sep)
	for i := range servers {
		if servers[i].Name != server {
			continue
		}
		if !perTool {
			servers[i].Class = c
			return nil
		}
		if servers[i].Classes == nil {
			servers[i].Classes = map[string]tool.Class{}
		}
		servers[i].Classes[toolName] = c
		return nil
	}
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.Name
	}
	return configError("--mcp-class %q: no server %q (servers: %s)", rule, server, strings.Join(names, ", "))
}

// AddEnv applies one --mcp-env rule, SERVER=NAME: the server it names in
// servers gets the variable NAME of nightshift's environment.
func AddEnv(servers []Server, rule string) error {
	server, name, ok := strings.Cut(rule, "=")
	server, name = strings.TrimSpace(server), strings.TrimSpace(name)
	if !ok || server == "" || !varPattern.MatchString(name) {
		return configError("--mcp-env %q: want SERVER=NAME, where NAME is a variable of nightshift's environment, for example github=GITHUB_TOKEN", rule)
	}
	names := make([]string, len(servers))
	for i := range servers {
		names[i] = servers[i].Name
		if servers[i].Name != server {
			continue
		}
		if servers[i].URL != "" {
			return configError("--mcp-env %q: server %s is at a url; only a server nightshift starts gets variables", rule, server)
		}
		if !slices.Contains(servers[i].Env, name) {
			servers[i].Env = append(servers[i].Env, name)
		}
		return nil
	}
	return configError("--mcp-env %q: no server %q (servers: %s)", rule, server, strings.Join(names, ", "))
}

// ToolName is the name a server's tool has in the run: NAME__tool, every
// character outside [a-zA-Z0-9_-] made _, cut to 64 characters.
func ToolName(server, name string) string {
	var b strings.Builder
	for _, r := range server + Sep + name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

// SplitCommand splits a command line into words as a POSIX shell does
// for quotes and backslashes, without expanding anything.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unclosed ' in the command")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New(`unclosed " in the command`)
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}

// TrustWorkspace lets the stdio server called name in servers start what
// the workspace holds (Server.TrustWorkspace), as a command-line switch
// naming it would: a name that is no server, or a server at a url, is an
// ErrConfig.
func TrustWorkspace(servers []Server, name string) error {
	name = strings.TrimSpace(name)
	names := make([]string, len(servers))
	for i := range servers {
		names[i] = servers[i].Name
		if servers[i].Name != name {
			continue
		}
		if servers[i].URL != "" {
			return configError("trust_workspace %s: server %s is at a url; only a server nightshift starts runs what the workspace holds", name, name)
		}
		servers[i].TrustWorkspace = true
		return nil
	}
	return configError("trust_workspace %q: no server %q (servers: %s)", name, name, strings.Join(names, ", "))
}
