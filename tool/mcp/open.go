package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nightshift-dev/nightshift/redact"
	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/tool"
)

// Config is the MCP servers of one run.
type Config struct {
	// Servers are the servers; none means no tools.
	Servers []Server
	// Dir is the run's workspace; default the current folder. A stdio
	// server starts outside it (StartDir), with the workspace as its one
	// MCP root, and is refused when what it would run lies inside it,
	// unless its Server.TrustWorkspace says otherwise (resolve).
	Dir string
	// StartDir is the folder in which each Open makes the empty,
	// read-only folder that stdio servers start in, outside the
	// workspace; default os.TempDir(). A run gives its state folder.
	StartDir string
	// Sandbox, when its mode is bwrap, is where stdio servers run: the
	// sandbox of the run's commands (sandbox.Sandbox.Command), with the
	// network, the workspace read-write as for commands (its .git,
	// hooks, hard-linked files and .nightshift read-only) and the rest of
	// the file system read-only, credentials hidden. Nil, or mode none:
	// they start directly, with the user's rights.
	Sandbox *sandbox.Sandbox
	// CacheDir is a folder a sandboxed stdio server may write, for the
	// caches of npx, uvx, pip and the like (XDG_CACHE_HOME,
	// npm_config_cache), kept from run to run; default none: the
	// sandbox's private /tmp, emptied when the server ends.
	CacheDir string
	// Env is the environment (NAME=VALUE) every stdio server starts with,
	// before the variables its Server.Env names; default the allow-listed
	// variables of Environ (sandbox.CleanEnv: PATH, HOME, LANG, ...),
	// never a credential. A run gives its commands' environment here
	// (sandbox.Sandbox.OutsideEnv), --env's variables included.
	Env []string
	// Environ is nightshift's environment, where the variables a
	// Server.Env names are read from; default os.Environ().
	Environ []string
	// Warn is told, in one line per server, the credentials a server is
	// given because its Server.Env names them. Default: not told.
	Warn func(line string)
	// Taken are the names of the run's other tools: a server tool mapped
	// to one of them is a collision (ErrConfig).
	Taken []string
	// StartTimeout bounds each server's start (its process, or its
	// connection, and the MCP handshake and tool list); default 60s,
	// which leaves room for npx to fetch a package the first time.
	StartTimeout time.Duration
	// HTTPClient reaches the URL servers; default http.DefaultClient.
	HTTPClient *http.Client
	// Version is nightshift's version, told to each server; default
	// "dev".
	Version string
}

// DefaultStartTimeout bounds a server's start unless Config.StartTimeout
// says otherwise.
const DefaultStartTimeout = 60 * time.Second

// Toolbox is the running servers of a run and their tools. Close stops
// them.
type Toolbox struct {
	conns []*conn
	tools []tool.Tool
	// start is the folder stdio servers start in (startFolder).
	start string
}

// Open starts (or connects to) every server, lists its tools and maps
// them to NAME__tool. Every failure is an ErrConfig, and then no server is
// left running: a server that does not start, a per-tool class naming no
// tool of its server, or two tools (or a tool and one of Config.Taken)
// under one name.
func Open(ctx context.Context, cfg Config) (*Toolbox, error) {
	tb := &Toolbox{}
	ws := cfg.workspace()
	seen := map[string]string{}
	for _, n := range cfg.Taken {
		seen[n] = "a tool of the run"
	}
	servers := map[string]bool{}
	for _, s := range cfg.Servers {
		if err := s.Check(); err != nil {
			tb.Close()
			return nil, err
		}
		if servers[s.Name] {
			tb.Close()
			return nil, configError("two servers are named %s", s.Name)
		}
		servers[s.Name] = true
		c := newConn(s, cfg, ws)
		if len(s.Command) > 0 {
			if tb.start == "" && !s.TrustWorkspace {
				start, err := startFolder(cfg.StartDir)
				if err != nil {
					tb.Close()
					return nil, configError("server %s: the folder it starts in: %v", s.Name, err)
				}
				tb.start = start
			}
			l, err := resolve(s, ws, tb.start, environment(s, cfg))
			if err != nil {
				tb.Close()
				return nil, err
			}
			c.launch = l
		}
		tb.conns = append(tb.conns, c)
		listed, err := c.start(ctx)
		if err != nil {
			tb.Close()
			return nil, err
		}
		if err := tb.add(c, listed, seen); err != nil {
			tb.Close()
			return nil, err
		}
	}
	return tb, nil
}

// environment is the environment of the stdio server s: Config.Env, then
// the variables s.Env names, read from Config.Environ. Each of those that
// holds a credential is named in a warning.
func environment(s Server, cfg Config) []string {
	environ := cfg.Environ
	if environ == nil {
		environ = os.Environ()
	}
	env := cfg.Env
	if env == nil {
		env = sandbox.CleanEnv(environ)
	}
	env = slices.Clone(env)
	var secret []string
	for _, name := range s.Env {
		v, ok := lookup(environ, name)
		if !ok {
			continue
		}
		env = append(slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") }), name+"="+v)
		if redact.IsCredentialName(name) || redact.HasPassword(v) {
			secret = append(secret, name)
		}
	}
	if len(secret) > 0 && cfg.Warn != nil {
		what := "a credential, given because its env names it"
		if len(secret) > 1 {
			what = "credentials, given because its env names them"
		}
		cfg.Warn(fmt.Sprintf("MCP server %s gets %s from nightshift's environment: %s", s.Name, strings.Join(secret, ", "), what))
	}
	if env == nil {
		// Not nil, which would hand the server nightshift's whole
		// environment.
		env = []string{}
	}
	return env
}

// lookup returns the value of name in environ, the last one set winning
// as in a process's environment.
func lookup(environ []string, name string) (string, bool) {
	for i := len(environ) - 1; i >= 0; i-- {
		if n, v, ok := strings.Cut(environ[i], "="); ok && n == name {
			return v, true
		}
	}
	return "", false
}

// add maps a server's listed tools into the toolbox.
func (tb *Toolbox) add(c *conn, listed []*sdk.Tool, seen map[string]string) error {
	s := c.server
	known := map[string]bool{}
	for _, t := range listed {
		name := ToolName(s.Name, t.Name)
		known[t.Name], known[strings.TrimPrefix(name, s.Name+Sep)] = true, true
		if prev, dup := seen[name]; dup {
			return configError("server %s: its tool %q is named %s in the run, as %s is already; rename the server (--mcp OTHER=...)", s.Name, t.Name, name, prev)
		}
		seen[name] = fmt.Sprintf("tool %q of server %s", t.Name, s.Name)
		mt, err := newTool(c, t, name, s.class(t.Name, strings.TrimPrefix(name, s.Name+Sep)))
		if err != nil {
			return configError("server %s: tool %q: %v", s.Name, t.Name, err)
		}
		tb.tools = append(tb.tools, mt)
	}
	for _, n := range slices.Sorted(maps.Keys(s.Classes)) {
		if !known[n] {
			var have []string
			for _, t := range listed {
				have = append(have, t.Name)
			}
			return configError("server %s has no tool %q to give a class to; its tools are: %s", s.Name, n, strings.Join(have, ", "))
		}
	}
	return nil
}

// Tools returns the servers' tools, each named NAME__tool.
func (tb *Toolbox) Tools() []tool.Tool {
	if tb == nil {
		return nil
	}
	return slices.Clone(tb.tools)
}

// Names returns the names of the servers' tools in the run.
func (tb *Toolbox) Names() []string {
	var out []string
	for _, t := range tb.Tools() {
		out = append(out, t.Spec().Name)
	}
	return out
}

// Close stops every server (a stdio server's process ends; an HTTP
// session is closed). It is safe to call more than once, and on nil.
func (tb *Toolbox) Close() error {
	if tb == nil {
		return nil
	}
	var errs []error
	for _, c := range tb.conns {
		errs = append(errs, c.close())
	}
	removeStartFolder(tb.start)
	tb.start = ""
	return errors.Join(errs...)
}

// workspace returns Dir made absolute, with its symlinks resolved.
func (cfg Config) workspace() string {
	dir, err := filepath.Abs(cmp.Or(cfg.Dir, "."))
	if err != nil {
		return cfg.Dir
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
}
