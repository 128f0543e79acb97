package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/tool"
)

// maxRestarts is how many times a server that died is started again in
// one run: once, so that a crash does not end the run's use of it, and
// a server that keeps dying does not keep the run restarting it.
const maxRestarts = 1

// stopWait is how long a stdio server has to exit once its stdin is
// closed, before it is sent SIGTERM (and as long again before SIGKILL).
const stopWait = 2 * time.Second

// conn is one server, started once and perhaps once more.
type conn struct {
	server Server
	cfg    Config
	// launch is how a stdio server starts (resolve).
	launch launch
	client *sdk.Client
	// stderr keeps the end of a stdio server's error output, to say why
	// it would not start or died.
	stderr *tail

	mu       sync.Mutex
	session  *sdk.ClientSession
	release  func()        // undoes what the sandbox needed for the process
	ended    chan struct{} // closed once session's connection is gone
	restarts int
	// gone is why the server can no longer be used; its tools answer
	// with it.
	gone    error
	stopped bool
}

func newConn(s Server, cfg Config, ws string) *conn {
	c := &conn{server: s, cfg: cfg, stderr: newTail(4096)}
	c.client = sdk.NewClient(&sdk.Implementation{Name: "nightshift", Version: cmp.Or(cfg.Version, "dev")}, nil)
	if len(s.Command) > 0 && ws != "" {
		// The workspace is the server's one root (MCP roots): how a
		// server such as the reference filesystem server learns where
		// to work, now that it starts outside the workspace (its "."
		// is its start folder).
		//lint:ignore SA1019 roots are how today's servers learn the workspace; the SDK keeps them through the deprecation window
		c.client.AddRoots(&sdk.Root{URI: (&url.URL{Scheme: "file", Path: ws}).String(), Name: "workspace"})
	}
	return c
}

// start starts the server and lists its tools, within the start timeout.
func (c *conn) start(ctx context.Context) ([]*sdk.Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(c.cfg.StartTimeout, DefaultStartTimeout))
	defer cancel()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.connectLocked(ctx); err != nil {
		return nil, &StartError{Server: c.server.Name, Err: err, Stderr: c.stderr.String()}
	}
	var tools []*sdk.Tool
	size := 0
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return nil, &StartError{Server: c.server.Name, Err: fmt.Errorf("listing its tools: %w", err), Stderr: c.stderr.String()}
		}
		tools = append(tools, t)
		// Every tool's name, description and schema go to the model with
		// every call of the run: a server that lists 100,000 tools, or
		// one of a megabyte, would fill the model's window and the bill.
		b, _ := json.Marshal(t)
		if size += len(b); len(tools) > MaxServerTools || size > MaxServerToolBytes {
			return nil, &StartError{Server: c.server.Name, Err: fmt.Errorf(
				"it lists more than %d tools or %d KiB of tool definitions, which would go to the model with every call; nightshift takes at most that much from one server", MaxServerTools, MaxServerToolBytes>>10)}
		}
	}
	return tools, nil
}

// The most one server's tools may be: how many, and the size of their
// definitions (names, descriptions, input schemas) as JSON.
const (
	MaxServerTools     = 256
	MaxServerToolBytes = 256 << 10
)

// connectLocked starts the server's process or opens its HTTP session.
func (c *conn) connectLocked(ctx context.Context) error {
	var t sdk.Transport
	if c.server.URL != "" {
		t = &sdk.StreamableClientTransport{
			Endpoint: c.server.URL, HTTPClient: c.cfg.HTTPClient,
			// Only replies to our calls are wanted; a standing stream
			// would hold the server's connection open after the run.
			DisableStandaloneSSE: true,
		}
	} else {
		cmd, release, err := c.command(ctx)
		if err != nil {
			return err
		}
		cmd.Stderr = c.stderr
		// A grandchild holding stderr open (npx runs node) must not
		// keep the stop waiting on the pipe.
		cmd.WaitDelay = stopWait
		t = &sdk.CommandTransport{Command: cmd, TerminateDuration: stopWait}
		c.release = release
	}
	s, err := c.client.Connect(ctx, t, nil)
	if err != nil {
		c.releaseLocked()
		return err
	}
	ended := make(chan struct{})
	release := c.release
	go func() {
		s.Wait() //nolint:errcheck // how it ended is read from the next call's error
		if release != nil {
			release()
		}
		close(ended)
	}()
	c.session, c.ended = s, ended
	return nil
}

func (c *conn) releaseLocked() {
	if c.release != nil {
		c.release()
		c.release = nil
	}
}

// command builds the process of a stdio server from its launch: under
// the run's sandbox when that is bwrap (sandbox.Sandbox.Command), with
// the network, its start folder and program visible, and its caches in
// Config.CacheDir (else the sandbox's private /tmp); else started
// directly, never with nightshift's own environment.
func (c *conn) command(ctx context.Context) (*exec.Cmd, func(), error) {
	l := c.launch
	sb := c.cfg.Sandbox
	if sb == nil || sb.Mode() != sandbox.Bwrap {
		cmd := exec.Command(l.argv[0], l.argv[1:]...)
		cmd.Dir = l.dir
		// Never nightshift's own environment, which holds its keys: a
		// nil Env would hand the server all of it.
		cmd.Env = l.env
		cmd.SysProcAttr = procAttr()
		return cmd, nil, nil
	}
	o := sandbox.Options{Dir: l.dir, Net: true, Env: slices.Clone(l.env)}
	if !l.inWorkspace {
		o.ReadOnly = append(o.ReadOnly, l.dir)
	}
	// The program where the sandbox would not show it (a private /tmp,
	// a hidden folder): bound over what hides it.
	for _, p := range []string{l.argv[0], realPath(l.argv[0])} {
		if p != "" && !within(p, c.cfg.workspace()) {
			o.ReadOnly = append(o.ReadOnly, p)
		}
	}
	cache, npm := "/tmp/.cache", "/tmp/.npm"
	if c.cfg.CacheDir != "" {
		if err := os.MkdirAll(c.cfg.CacheDir, 0o700); err != nil {
			return nil, nil, fmt.Errorf("its cache folder: %w", err)
		}
		o.ReadWrite = append(o.ReadWrite, c.cfg.CacheDir)
		cache, npm = c.cfg.CacheDir, filepath.Join(c.cfg.CacheDir, "npm")
	}
	o.Env = setEnv(o.Env, "TMPDIR", "/tmp")
	for name, value := range map[string]string{"XDG_CACHE_HOME": cache, "npm_config_cache": npm} {
		if _, set := lookup(o.Env, name); !set {
			o.Env = append(o.Env, name+"="+value)
		}
	}
	return sb.Command(ctx, l.argv, o)
}

func realPath(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil || r == p {
		return ""
	}
	return r
}

// StartError is a server that could not be started or reached. It
// matches ErrConfig.
type StartError struct {
	Server string
	Err    error
	// Stderr is the end of a stdio server's error output.
	Stderr string
}

func (e *StartError) Error() string {
	// Said to the person who named the server, in their terms: which
	// one, why, and that it is their --mcp (or mcp:) that names it.
	msg := fmt.Sprintf("MCP server %s (--mcp or mcp:) did not start: %v", e.Server, e.Err)
	if s := strings.TrimSpace(e.Stderr); s != "" {
		msg += "; its stderr ended with: " + s
	}
	return msg
}

func (e *StartError) Unwrap() error        { return e.Err }
func (e *StartError) Is(target error) bool { return target == ErrConfig }

// call calls the server's tool name with input. Every failure is a
// result for the model; none is repeated.
func (c *conn) call(ctx context.Context, runName, name string, input json.RawMessage) tool.Result {
	s, err := c.ready(ctx)
	if err != nil {
		return tool.Error(fmt.Sprintf("%s was not run: %v", runName, err))
	}
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: input})
	switch {
	case err == nil:
		return result(res)
	case ctx.Err() != nil:
		return tool.Error(fmt.Sprintf("%s did not finish: %v", runName, ctx.Err()))
	}
	if wire, ok := answered(err); ok {
		// The server answered: it is alive, and refused the call.
		return tool.Error(fmt.Sprintf("%s failed: the MCP server %s answered: %s", runName, c.server.Name, wire.Message))
	}
	// The server went away during the call: what the call did is not
	// known, so it is not repeated; the server is started again for the
	// calls to come.
	after := c.died(ctx, s, err)
	return tool.Error(fmt.Sprintf("%s failed: the MCP server %s stopped during the call (%v); %s. The call was not repeated: it may or may not have taken effect, so check before calling it again.",
		runName, c.server.Name, err, after))
}

// answered returns the error a server sent in its reply to a call. The
// SDK gives transport failures (a connection refused or cut, a session
// the server lost) JSON-RPC codes of its own too, which are not the
// server's answer.
func answered(err error) (*jsonrpc.Error, bool) {
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		return nil, false
	}
	switch wire.Code {
	case codeClientClosing, codeServerClosing, codeRejected:
		return nil, false
	}
	return wire, true
}

// The SDK's own codes for a call the transport could not deliver or
// complete (internal/jsonrpc2's ErrClientClosing, ErrServerClosing and
// ErrRejected).
const (
	codeClientClosing = -32003
	codeServerClosing = -32004
	codeRejected      = -32005
)

// ready returns the session to call, first starting the server again if
// it died since the last call (a call that was never sent is safe to
// send to the new one).
func (c *conn) ready(ctx context.Context) (*sdk.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone != nil {
		return nil, c.gone
	}
	select {
	case <-c.ended:
		if err := c.restartLocked(ctx, errors.New("it exited")); err != nil {
			return nil, err
		}
	default:
	}
	return c.session, nil
}

// died handles a session that failed during a call, and says what became
// of the server.
func (c *conn) died(ctx context.Context, s *sdk.ClientSession, cause error) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session != s {
		return "it was started again already"
	}
	if err := c.restartLocked(ctx, cause); err != nil {
		return err.Error()
	}
	return "it was started again"
}

// restartLocked starts the server once more, or marks it gone.
func (c *conn) restartLocked(ctx context.Context, cause error) error {
	if c.stopped {
		c.gone = fmt.Errorf("the MCP server %s was stopped with the run", c.server.Name)
		return c.gone
	}
	c.session.Close() //nolint:errcheck // it is gone already
	c.release = nil   // the old process's goroutine lets go of it
	if c.restarts >= maxRestarts {
		c.gone = fmt.Errorf("the MCP server %s died again (%v) after it was restarted once; its tools cannot be used for the rest of this run%s",
			c.server.Name, cause, c.stderrNote())
		return c.gone
	}
	c.restarts++
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cmp.Or(c.cfg.StartTimeout, DefaultStartTimeout))
	defer cancel()
	if err := c.connectLocked(ctx); err != nil {
		c.gone = fmt.Errorf("the MCP server %s died (%v) and could not be started again (%v); its tools cannot be used for the rest of this run%s",
			c.server.Name, cause, err, c.stderrNote())
		return c.gone
	}
	return nil
}

func (c *conn) stderrNote() string {
	if s := strings.TrimSpace(c.stderr.String()); s != "" {
		return "; its stderr ended with: " + s
	}
	return ""
}

// close stops the server.
func (c *conn) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return nil
	}
	c.stopped = true
	if c.session == nil {
		return nil
	}
	err := c.session.Close()
	if err != nil && c.server.URL == "" {
		// A stdio server that exits when its stdin closes reports its
		// exit status here; that is not a failure of the run.
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = nil
		}
	}
	return err
}

// tail keeps the last n bytes written to it.
type tail struct {
	mu  sync.Mutex
	n   int
	buf []byte
}

func newTail(n int) *tail { return &tail{n: n} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.n {
		t.buf = t.buf[len(t.buf)-t.n:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
