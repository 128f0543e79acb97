//go:build unix

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// Exit is how a command ended.
type Exit struct {
	// Code is the exit status; under bwrap or in a PID namespace a
	// command killed by signal N reports 128+N here, as a shell does.
	Code int
	// Signal is the signal that killed the command, when it was killed
	// directly; 0 otherwise.
	Signal syscall.Signal
}

// OK reports whether the command exited with status 0.
func (e Exit) OK() bool { return e.Code == 0 && e.Signal == 0 }

// String says how the command ended: "exit status 3", "killed by signal
// killed", "exit status 137 (killed by signal 9)".
func (e Exit) String() string {
	if e.Signal != 0 {
		return "killed by signal " + e.Signal.String()
	}
	if e.Code > 128 && e.Code <= 128+64 {
		return fmt.Sprintf("exit status %d (killed by signal %d)", e.Code, e.Code-128)
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

// drainGrace is how long Run waits for the output pipe to close once the
// command and its process group are gone. Only a process that left both
// (possible under None without a PID namespace) holds it longer; its
// output is not waited for.
const drainGrace = 2 * time.Second

// Run runs line with the shell in the workspace, writing its combined
// stdout and stderr to out (from one goroutine at a time), with nothing
// to read on stdin. When ctx ends first, the command and everything it
// started are killed and Run returns ctx's error. Whatever the command
// left running when it exited is killed too: nobody is there to look
// after a background process in an unattended run. An error other than
// ctx's means the command could not be started.
func (s *Sandbox) Run(ctx context.Context, line string, out io.Writer) (Exit, error) {
	// The workspace is looked at again for every command: a repository
	// cloned or made by an earlier one is protected too, and so is a
	// file linked since.
	p := s.prepare(ctx)
	defer p.release()
	if p.refused != "" {
		return Exit{}, fmt.Errorf("sandbox: not run: %s", p.refused)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return Exit{}, err
	}
	c := s.command(line, p)
	c.Stdout, c.Stderr = w, w
	if s.mode == Bwrap && s.seccomp != nil {
		f, err := seccompPipe(s.seccomp)
		if err != nil {
			r.Close()
			w.Close()
			return Exit{}, err
		}
		defer f.Close() // the child has its own copy once started
		c.ExtraFiles = []*os.File{f}
	}

	// Start and wait on one locked thread: the parent-death signal is
	// sent when the thread that started the child ends, not the process,
	// and the Go runtime may end an idle thread.
	started := make(chan error, 1)
	waited := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := c.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		waited <- c.Wait()
	}()
	if err := <-started; err != nil {
		r.Close()
		w.Close()
		return Exit{}, err
	}
	// Our copy of the write end goes, so that the reader sees the end of
	// the output when the command's processes are gone.
	w.Close()
	tail := &lastBytes{max: noteTail}
	read := make(chan struct{})
	go func() {
		defer close(read)
		io.Copy(io.MultiWriter(out, tail), r) //nolint:errcheck // a closed pipe ends the copy
	}()

	var werr, cerr error
	select {
	case werr = <-waited:
	case <-ctx.Done():
		cerr = ctx.Err()
		kill(c.Process.Pid)
		werr = <-waited
	}
	// The rest of the group goes too (the PID namespace, if any, went
	// with its first process).
	kill(c.Process.Pid)
	select {
	case <-read:
	case <-time.After(drainGrace):
		r.Close() // interrupts the copy
		<-read
	}
	r.Close()
	s.after(ctx, p, tail.String(), out)
	if cerr != nil {
		return Exit{}, cerr
	}
	e, err := exitOf(werr)
	if err == nil && s.mode == Bwrap && brokeSandbox(e.Code, tail.String()) {
		// bubblewrap itself failed: what the probe found may no longer
		// hold (user namespaces turned off since), and the next sandbox
		// probes again instead of trusting the record.
		forgetProbe(s.cfg.ProbeCache)
	}
	return e, err
}

// noteTail is how much of a command's output is kept to find, in its
// error messages, the read-only paths it tried to change.
const noteTail = 64 << 10

// command builds the exec.Cmd for line; under bwrap with the mounts of
// the plan p.
func (s *Sandbox) command(line string, p *plan) *exec.Cmd {
	var c *exec.Cmd
	switch {
	case s.mode == Bwrap:
		args := append(s.bwrapArgs(p, launch{net: s.cfg.Net}), s.cfg.Shell, "-c", line)
		c = exec.Command(s.bwrap, args...)
		c.SysProcAttr = bwrapAttr()
	case s.pidns != noPidns:
		// The first process of a PID namespace is its init, which
		// ignores the signals it does not handle (even SIGKILL sent from
		// inside): the command's own shell must not be that process, or
		// `kill $$` would do nothing. A shell waits for it instead, and
		// when that shell ends, the kernel ends the namespace. (That
		// shell says "Killed" when the command is, as in a terminal.)
		c = exec.Command(s.cfg.Shell, "-c", `"$0" -c "$1"; exit $?`, s.cfg.Shell, line)
		c.SysProcAttr = s.pidns.attr()
	default:
		c = exec.Command(s.cfg.Shell, "-c", line)
		c.SysProcAttr = s.pidns.attr()
	}
	c.Dir = s.dir
	c.Env = s.env
	c.Stdin = nil // /dev/null: nobody is there to type
	return c
}

// kill sends SIGKILL to the process group pgid (the command started its
// own session, so its pid is its group's). An error means the group is
// gone already, which is what was wanted.
func kill(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// exitOf reads a finished command's status.
func exitOf(err error) (Exit, error) {
	if err == nil {
		return Exit{}, nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return Exit{}, err
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Exit{Code: -1, Signal: ws.Signal()}, nil
	}
	return Exit{Code: ee.ExitCode()}, nil
}
