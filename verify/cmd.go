package verify

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/workspace"
)

// DefaultCmdTimeout bounds a cmd rule when Cmd is given no timeout.
const DefaultCmdTimeout = 2 * time.Minute

// Output tail limits: enough of a failing test's last lines for the model
// to act on, small enough for one feedback message.
const (
	tailBytes = 2048
	tailLines = 15
)

// cmdRule runs a shell command in the workspace; exit status 0 passes.
type cmdRule struct {
	command string
	timeout time.Duration
}

// Cmd returns the rule cmd:COMMAND: `sh -c COMMAND` run in the workspace
// root, passing on exit status 0 within timeout (0 means
// DefaultCmdTimeout). It runs as run_command does: in the sandbox of
// Input.Commands (see package sandbox), with an allow-listed environment
// that holds no credential, and nothing it starts outlives it. The tail
// of its combined output is kept for the failure message.
func Cmd(command string, timeout time.Duration) Rule {
	if timeout <= 0 {
		timeout = DefaultCmdTimeout
	}
	return &cmdRule{command: command, timeout: timeout}
}

func (r *cmdRule) Name() string   { return "cmd" }
func (r *cmdRule) String() string { return "cmd:" + r.command }

func (r *cmdRule) Check(ctx context.Context, in Input) *Failure {
	fail := func(status string) *Failure {
		return &Failure{Check: "cmd", Message: fmt.Sprintf("cmd %q: %s", r.command, status)}
	}
	sb := in.Commands
	if sb == nil {
		var err error
		sb, err = sandbox.New(sandbox.Config{Dir: in.Dir, Hide: []string{filepath.Join(in.Dir, workspace.StateDirName)}})
		if err != nil {
			return fail("could not run: " + err.Error())
		}
	}
	sb.Prepare() // its first scan is not the command's time
	cctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	out := &tail{max: tailBytes}
	exit, err := sb.Run(cctx, r.command, out)
	var status string
	switch {
	case err == nil && exit.OK():
		return nil
	case err != nil && ctx.Err() != nil:
		status = "stopped before it finished"
	case errors.Is(err, context.DeadlineExceeded):
		status = "timed out after " + r.timeout.String()
	case err != nil:
		status = "could not run: " + err.Error()
	default:
		status = exit.String()
	}
	f := fail(status)
	if t := out.lastLines(tailLines); t != "" {
		f.Message += "; output tail:\n" + t
	}
	return f
}

// tail keeps the last max bytes written to it.
type tail struct {
	max int
	buf []byte
	cut bool
}

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return len(p), nil
}

// lastLines returns at most n trailing non-empty lines, and a leading
// "..." when earlier output was dropped.
func (t *tail) lastLines(n int) string {
	s := strings.ToValidUTF8(string(t.buf), "")
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	cut := t.cut
	if len(lines) > n {
		lines, cut = lines[len(lines)-n:], true
	}
	out := strings.TrimSpace(strings.Join(lines, "\n"))
	if out != "" && cut {
		out = "...\n" + out
	}
	return out
}
