package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/statedir"
)

// bwrapArgs returns bubblewrap's arguments up to the command, with the
// .git entries gits (gitEntries) bound read-only. The order of the
// mounts matters: each one lands on top of those before it.
func (s *Sandbox) bwrapArgs(gits []string) []string {
	a := []string{
		// Killed when we die: bwrap itself by the parent-death signal we
		// set, the sandbox's init by this flag, and with the init the
		// whole PID namespace. Not --as-pid-1: bwrap's own init stays
		// PID 1, reaps orphans and ends the namespace when the command
		// ends; the command as PID 1 would ignore signals it does not
		// handle, even its own `kill $$`.
		"--die-with-parent",
		// A session of its own: no controlling terminal to push keys
		// into (TIOCSTI) or to read a person's answers from.
		"--new-session",
		// Every namespace: mounts, PID, IPC, UTS, network, cgroup, and a
		// user namespace when one can be made. Mounts made from inside a
		// user namespace are locked: the command cannot remount the
		// read-only ones read-write.
		"--unshare-all",
	}
	if s.cfg.Net {
		a = append(a, "--share-net")
	}
	a = append(a,
		// As root, bwrap would leave the command every capability
		// (mount, mknod, ptrace): none of them are its business.
		"--cap-drop", "ALL",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
	)
	// /run holds the sockets of the machine's services (Docker, D-Bus,
	// databases): a socket on a read-only mount still answers.
	for _, run := range []string{"/run", "/var/run"} {
		if fi, err := os.Lstat(run); err == nil && fi.IsDir() {
			a = append(a, "--tmpfs", run)
		}
	}
	if s.cfg.Net {
		// With the network comes name resolution, whose file often lives
		// under /run.
		if t, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && under(t, "/run") {
			a = append(a, "--ro-bind", filepath.Dir(t), filepath.Dir(t))
		}
	}
	inside, outside := s.hidden()
	for _, h := range outside {
		a = append(a, hide(h)...)
	}
	a = append(a, "--bind", s.dir, s.dir)
	// Every .git read-only, nested ones too: a hook or a config line
	// (core.fsmonitor, say) written there runs as the user at the next
	// git command.
	for _, git := range gits {
		a = append(a, "--ro-bind", git, git)
	}
	for _, h := range inside {
		a = append(a, hide(h)...)
	}
	if s.seccomp != nil {
		// The filter comes on the command's first extra file (fd 3):
		// seccompPipe.
		a = append(a, "--seccomp", "3")
	}
	return append(a, "--chdir", s.dir, "--")
}

// seccompPipe returns the read end of a pipe that holds filter, to be
// the command's fd 3, which bwrap reads to its end. The filter is a few
// hundred bytes: the pipe's buffer holds it without a reader.
func seccompPipe(filter []byte) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	_, err = w.Write(filter)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	return r, nil
}

// hidden returns the paths to hide that exist, with symlinks resolved,
// split into those inside the workspace (hidden after it is bound) and
// the others. Paths under /tmp outside the workspace are hidden already.
func (s *Sandbox) hidden() (inside, outside []string) {
	paths := append([]string(nil), s.cfg.Hide...)
	// nightshift's own state directory, wherever the user put it.
	if base, err := statedir.Base(""); err == nil {
		paths = append(paths, base)
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		for _, h := range HiddenHome {
			paths = append(paths, filepath.Join(home, h))
		}
	}
	seen := map[string]bool{}
	for _, p := range paths {
		real, err := filepath.EvalSymlinks(p)
		if err != nil || seen[real] || real == "/" {
			continue
		}
		seen[real] = true
		switch {
		case under(real, s.dir):
			if real != s.dir {
				inside = append(inside, real)
			}
		case under(real, "/tmp"):
		case under(s.dir, real):
			// Hiding a folder that holds the workspace would hide the
			// workspace; what is beside it is hidden below instead.
			outside = append(outside, besides(real, s.dir)...)
		default:
			outside = append(outside, real)
		}
	}
	return inside, outside
}

// besides returns the entries of dir that are not on the way to keep.
func besides(dir, keep string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		switch {
		case p == keep:
		case under(keep, p):
			out = append(out, besides(p, keep)...)
		default:
			out = append(out, p)
		}
	}
	return out
}

// hide returns the mount that hides p: an empty folder over a folder,
// /dev/null over anything else (reads find it empty, writes go nowhere).
// A plain bind would mount it "nodev", where /dev/null cannot be opened.
func hide(p string) []string {
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return []string{"--tmpfs", p}
	}
	return []string{"--dev-bind", "/dev/null", p}
}

// under reports whether p is dir or inside it.
func under(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// ErrNoBwrap is matched by the error of New with Mode Bwrap when
// bubblewrap is not installed (as opposed to installed but not working).
var ErrNoBwrap = errors.New("bubblewrap is not installed")

// The probe runs once per process and program: whether bwrap works does
// not change while we run, and a run of many commands should not pay for
// it each time.
var (
	probeMu     sync.Mutex
	probeResult = map[string]probed{}
)

type probed struct {
	path string
	err  error
	// seccomp is the filter commands get, nil when this bwrap or kernel
	// cannot install it (seccompErr says why).
	seccomp    []byte
	seccompErr error
}

// probeTimeout bounds the probe: a bwrap that hangs does not work.
const probeTimeout = 10 * time.Second

// probeBwrap finds bwrap and checks that it can build a sandbox here, the
// way commands will use it: in a container without user namespaces, or
// where the kernel forbids them to unprivileged users, it cannot.
// The seccomp filter is probed too, once bwrap works: where it cannot be
// installed, commands run without it, with a warning.
func probeBwrap(program string) probed {
	probeMu.Lock()
	defer probeMu.Unlock()
	if r, ok := probeResult[program]; ok {
		return r
	}
	r := probed{}
	path, err := exec.LookPath(program)
	if err != nil {
		r.err = fmt.Errorf("%w (%s)", ErrNoBwrap, program)
	} else {
		r.path, r.err = path, tryBwrap(path, nil)
	}
	if f := seccompFilter(); r.err == nil && f != nil {
		if r.seccompErr = tryBwrap(path, f); r.seccompErr == nil {
			r.seccomp = f
		}
	}
	probeResult[program] = r
	return r
}

// tryBwrap runs `exit 0` in a sandbox, with the seccomp filter when
// given.
func tryBwrap(path string, filter []byte) error {
	dir, err := os.MkdirTemp("", "nightshift-probe-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	s := &Sandbox{cfg: Config{Shell: DefaultShell}, dir: dir, mode: Bwrap, seccomp: filter}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, path, append(s.bwrapArgs(nil), "/bin/sh", "-c", "exit 0")...)
	if filter != nil {
		f, err := seccompPipe(filter)
		if err != nil {
			return err
		}
		defer f.Close()
		c.ExtraFiles = []*os.File{f}
	}
	c.Env = []string{"PATH=/usr/bin:/bin"}
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		if msg == "" {
			msg = err.Error()
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			msg = "it did not finish within " + probeTimeout.String()
		}
		return fmt.Errorf("bubblewrap (%s) does not work here: %s", path, firstLine(msg))
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
