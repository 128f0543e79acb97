package command

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/workspace"
)

// Name is the tool's name as the model sees it.
const Name = "run_command"

// Defaults of Config.
const (
	DefaultTimeout   = 2 * time.Minute
	DefaultMaxOutput = 16 << 10
	DefaultShell     = sandbox.DefaultShell
)

// Config configures the tool.
type Config struct {
	// Dir is the working directory of every command: the workspace root.
	// Required.
	Dir string
	// Timeout bounds each command; when it passes, the command and
	// everything it started are killed, and the model gets the output up
	// to the cut. Zero means DefaultTimeout (2 minutes).
	Timeout time.Duration
	// MaxOutput is how many bytes of combined stdout and stderr the model
	// gets back: the last ones, because errors and summaries come at the
	// end. Zero means DefaultMaxOutput (16 KiB).
	MaxOutput int
	// Sandbox starts the commands. Nil means a sandbox of mode auto for
	// Dir (bubblewrap when it works here) that hides the workspace's state
	// folder, built from Shell and Env below; the caller then finds its
	// warnings with Command.Sandbox.
	Sandbox *sandbox.Sandbox
	// Shell runs the command as `Shell -c COMMAND` when Sandbox is nil.
	// Empty means DefaultShell (/bin/sh).
	Shell string
	// Env is the environment the sandbox's allow-list picks from when
	// Sandbox is nil; nil means this process's environment. Either way a
	// command gets only the allowed variables (PATH, HOME, LANG, ...),
	// never a credential.
	Env []string
}

// Command is the run_command tool.
type Command struct {
	cfg Config
	// err is why the default sandbox could not be made; each call then
	// says so.
	err error
}

var _ tool.Tool = (*Command)(nil)

// New returns the tool. It panics if cfg.Dir is empty: a command without a
// workspace would run wherever the process happens to be.
func New(cfg Config) *Command {
	if cfg.Dir == "" {
		panic("command: Config.Dir is required")
	}
	cfg.Timeout = cmp.Or(cfg.Timeout, DefaultTimeout)
	cfg.MaxOutput = cmp.Or(cfg.MaxOutput, DefaultMaxOutput)
	c := &Command{cfg: cfg}
	if cfg.Sandbox == nil {
		c.cfg.Sandbox, c.err = sandbox.New(sandbox.Config{
			Dir: cfg.Dir, Shell: cfg.Shell, Environ: cfg.Env,
			Hide: []string{filepath.Join(cfg.Dir, workspace.StateDirName)},
		})
	}
	return c
}

// Sandbox returns the sandbox the commands run in; nil when the default
// one could not be made (each call then fails and says why).
func (c *Command) Sandbox() *sandbox.Sandbox { return c.cfg.Sandbox }

// Timeout returns how long one command may run. The tool set gives the
// call that long (and a little more), so that the command's own timeout,
// which keeps the output, is the one that fires.
func (c *Command) Timeout() time.Duration { return c.cfg.Timeout }

// Spec describes run_command to the model.
func (c *Command) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name: Name,
		Description: fmt.Sprintf("Run a shell command (sh -c) in the workspace folder and return its combined "+
			"stdout and stderr (the last %d bytes) and exit status. It is killed after %s, with everything it started; "+
			"nothing it starts in the background outlives it. %s"+
			"A person may have to approve it first; a refusal comes back as an error.",
			c.cfg.MaxOutput, c.cfg.Timeout, c.confinement()),
		InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string","description":"the command line, run with sh -c"}},"required":["command"],"additionalProperties":false}`),
	}
}

// confinement tells the model what the sandbox lets a command do, so that
// it does not spend steps finding out.
func (c *Command) confinement() string {
	sb := c.cfg.Sandbox
	if sb == nil || sb.Mode() != sandbox.Bwrap {
		return ""
	}
	net := "There is no network. "
	if sb.Net() {
		net = ""
	}
	return "It runs in a sandbox: only the workspace can be changed (not its .git folder), the rest of the file system is read-only, " +
		"/tmp is private and empty. " + net
}

// Class is tool.Danger: a command may change anything.
func (c *Command) Class() tool.Class { return tool.Danger }

// Input is run_command's input.
type Input struct {
	Command string `json:"command"`
}

// Run runs the command. A non-zero exit, a timeout or a command that could
// not start is an error result that still carries the output.
func (c *Command) Run(ctx context.Context, input json.RawMessage) tool.Result {
	var in Input
	if err := json.Unmarshal(input, &in); err != nil {
		return tool.Error("run_command: input must be {\"command\": string}: " + err.Error())
	}
	if strings.TrimSpace(in.Command) == "" {
		return tool.Error("run_command: command is empty")
	}
	out, status, err := c.run(ctx, in.Command)
	var b strings.Builder
	b.WriteString(out.String())
	if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(status)
	return tool.Result{Content: b.String(), IsError: err != nil}
}

// errFailed marks any outcome other than exit status 0.
var errFailed = errors.New("command failed")

// run runs line and returns its output, a status line for the model, and
// errFailed unless the command exited 0.
func (c *Command) run(ctx context.Context, line string) (*tail, string, error) {
	out := newTail(c.cfg.MaxOutput)
	if c.err != nil {
		return out, "[could not start: " + c.err.Error() + "]", errFailed
	}
	c.cfg.Sandbox.Prepare() // its first scan is not the command's time
	cctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	exit, err := c.cfg.Sandbox.Run(cctx, line, out)
	switch {
	case err != nil && ctx.Err() != nil:
		// The caller's end (the run's deadline, an interrupt), not ours.
		return out, "[stopped before it finished; the command and everything it started were killed]", errFailed
	case errors.Is(err, context.DeadlineExceeded):
		return out, fmt.Sprintf("[timed out after %s; the command and everything it started were killed]", c.cfg.Timeout), errFailed
	case err != nil:
		return out, "[could not start: " + err.Error() + "]", errFailed
	case !exit.OK():
		return out, "[" + exit.String() + "]", errFailed
	}
	return out, "[exit status 0]", nil
}

// SchemaPrechecked: the schema is a constant that TestTheCommandsSchemaCompiles compiles.
func (c *Command) SchemaPrechecked() {}
