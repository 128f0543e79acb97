package command

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
)

// Name is the tool's name as the model sees it.
const Name = "run_command"

// Defaults of Config.
const (
	DefaultTimeout   = 2 * time.Minute
	DefaultMaxOutput = 16 << 10
	DefaultShell     = "/bin/sh"
)

// Config configures the tool.
type Config struct {
	// Dir is the working directory of every command: the workspace root.
	// Required.
	Dir string
	// Timeout bounds each command; when it passes, the command's whole
	// process group is killed. Zero means DefaultTimeout (2 minutes).
	Timeout time.Duration
	// MaxOutput is how many bytes of combined stdout and stderr the model
	// gets back: the last ones, because errors and summaries come at the
	// end. Zero means DefaultMaxOutput (16 KiB).
	MaxOutput int
	// Shell runs the command as `Shell -c COMMAND`. Empty means
	// DefaultShell (/bin/sh).
	Shell string
	// Env is the command's environment. Nil means this process's
	// environment without the variables that look like credentials (see
	// SafeEnv), so that a command such as `env` cannot hand an API key to
	// the model.
	Env []string
}

// Command is the run_command tool.
type Command struct {
	cfg Config
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
	cfg.Shell = cmp.Or(cfg.Shell, DefaultShell)
	if cfg.Env == nil {
		cfg.Env = SafeEnv(os.Environ())
	}
	return &Command{cfg: cfg}
}

// Spec describes run_command to the model.
func (c *Command) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name: Name,
		Description: fmt.Sprintf("Run a shell command (sh -c) in the workspace folder and return its combined "+
			"stdout and stderr (the last %d bytes) and exit status. It is killed after %s. "+
			"A person may have to approve it first; a refusal comes back as an error.",
			c.cfg.MaxOutput, c.cfg.Timeout),
		InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string","description":"the command line, run with sh -c"}},"required":["command"],"additionalProperties":false}`),
	}
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
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()

	// Our own pipe rather than an io.Writer: exec would then wait for
	// every holder of the pipe (a backgrounded grandchild) before Wait
	// returns. With a file, Wait returns when the shell exits, we kill
	// what is left of its group, and the reader sees EOF.
	r, w, err := os.Pipe()
	if err != nil {
		return out, "[could not start: " + err.Error() + "]", errFailed
	}
	cmd := exec.Command(c.cfg.Shell, "-c", line)
	cmd.Dir = c.cfg.Dir
	cmd.Env = c.cfg.Env
	cmd.Stdin = nil // reads from /dev/null: nobody is there to type
	cmd.Stdout = w
	cmd.Stderr = w
	// A group of its own, so that a timeout kills the children too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return out, "[could not start: " + err.Error() + "]", errFailed
	}
	w.Close()
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()

	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var timedOut, canceled bool
	var werr error
	select {
	case werr = <-waited:
	case <-ctx.Done():
		timedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		canceled = !timedOut
		killGroup(cmd.Process.Pid)
		werr = <-waited
	}
	// Whatever the shell left running in its group goes too: nobody is
	// there to look after a background process in an unattended run.
	killGroup(cmd.Process.Pid)
	<-read
	r.Close()

	switch {
	case timedOut:
		return out, fmt.Sprintf("[timed out after %s; process group killed]", c.cfg.Timeout), errFailed
	case canceled:
		return out, "[canceled; process group killed]", errFailed
	case werr == nil:
		return out, "[exit status 0]", nil
	}
	var exit *exec.ExitError
	if errors.As(werr, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return out, fmt.Sprintf("[killed by signal %s]", ws.Signal()), errFailed
		}
		return out, fmt.Sprintf("[exit status %d]", exit.ExitCode()), errFailed
	}
	return out, "[error: " + werr.Error() + "]", errFailed
}

// killGroup sends SIGKILL to the process group pgid. An error means the
// group is already gone, which is what we wanted.
func killGroup(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}
