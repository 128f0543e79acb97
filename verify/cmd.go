package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
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
// DefaultCmdTimeout). The tail of its combined output is kept for the
// failure message. Variables named like API keys (*_API_KEY) are removed
// from its environment: a check has no business with them, and its output
// goes to the model and the record.
func Cmd(command string, timeout time.Duration) Rule {
	if timeout <= 0 {
		timeout = DefaultCmdTimeout
	}
	return &cmdRule{command: command, timeout: timeout}
}

func (r *cmdRule) Name() string   { return "cmd" }
func (r *cmdRule) String() string { return "cmd:" + r.command }

func (r *cmdRule) Check(ctx context.Context, in Input) *Failure {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	c := exec.CommandContext(ctx, "sh", "-c", r.command)
	c.Dir = in.Dir
	env, secrets := scrubEnv(os.Environ())
	c.Env = env
	out := &tail{max: tailBytes}
	c.Stdout, c.Stderr = out, out
	// A test suite may leave children holding the output pipe; do not wait
	// for them past the kill.
	c.WaitDelay = 5 * time.Second
	killGroup(c)
	err := c.Run()
	if err == nil {
		return nil
	}
	var status string
	var exit *exec.ExitError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		status = "timed out after " + r.timeout.String()
	case errors.As(err, &exit):
		status = exit.String()
	default:
		status = "could not run: " + err.Error()
	}
	msg := fmt.Sprintf("cmd %q: %s", r.command, status)
	if t := out.lastLines(tailLines, secrets); t != "" {
		msg += "; output tail:\n" + t
	}
	return &Failure{Check: "cmd", Message: msg}
}

// scrubEnv drops API-key variables from env and returns their values, so
// that any that still reach the output can be redacted.
func scrubEnv(env []string) (kept, secrets []string) {
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if isKeyName(name) {
			if len(value) >= 8 {
				secrets = append(secrets, value)
			}
			continue
		}
		kept = append(kept, kv)
	}
	return kept, secrets
}

func isKeyName(name string) bool {
	n := strings.ToUpper(name)
	return n == "API_KEY" || strings.HasSuffix(n, "_API_KEY")
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

// lastLines returns at most n trailing non-empty lines, with any secret
// replaced, and a leading "..." when earlier output was dropped.
func (t *tail) lastLines(n int, secrets []string) string {
	s := strings.ToValidUTF8(string(t.buf), "")
	for _, sec := range secrets {
		s = strings.ReplaceAll(s, sec, "[redacted]")
	}
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
