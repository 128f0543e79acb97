package sandbox

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/workspace"
)

// launch is what differs between a command and a long-lived process (an
// MCP server) in the same sandbox.
type launch struct {
	// net gives the network (--share-net).
	net bool
	// chdir is the working directory inside; default the workspace.
	chdir string
	// ro are more paths bound read-only, after the hidden ones, so that
	// they are seen even where a folder holding them is hidden (an MCP
	// server's start folder, its program).
	ro []string
	// rw are paths bound read-write the same way (an MCP server's cache).
	rw []string
}

// bwrapArgs returns bubblewrap's arguments up to the command, with the
// mounts of the plan p (nil: none, as for the probe). The order of the
// mounts matters: each one lands on top of those before it.
func (s *Sandbox) bwrapArgs(p *plan, l launch) []string {
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
	if l.net {
		a = append(a, "--share-net")
	}
	a = append(a,
		// As root, bwrap would leave the command every capability
		// (mount, mknod, ptrace): none of them are its business.
		"--cap-drop", "ALL",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
	)
	// The kernel's knobs under /proc (sys, sysrq-trigger, irq, bus, ...)
	// read-only: as root, even without capabilities, a command could
	// otherwise write /proc/sys/kernel/core_pattern, a program the host
	// then runs as root.
	for _, e := range procEntries() {
		a = append(a, "--ro-bind", e, e)
	}
	a = append(a, "--tmpfs", "/tmp")
	// /run holds the sockets of the machine's services (Docker, D-Bus,
	// databases): a socket on a read-only mount still answers.
	for _, run := range []string{"/run", "/var/run"} {
		if fi, err := os.Lstat(run); err == nil && fi.IsDir() {
			a = append(a, "--tmpfs", run)
		}
	}
	if l.net {
		// With the network comes name resolution, whose file often lives
		// under /run.
		if t, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && under(t, "/run") {
			a = append(a, "--ro-bind", filepath.Dir(t), filepath.Dir(t))
		}
	}
	if p != nil {
		for _, h := range s.outsideHidden() {
			a = append(a, hide(h)...)
		}
	}
	for _, r := range l.ro {
		a = append(a, "--ro-bind", r, r)
	}
	for _, r := range l.rw {
		a = append(a, "--bind", r, r)
	}
	a = append(a, "--bind", s.dir, s.dir)
	if p != nil {
		// First, so that the read-only and hidden paths beneath land on
		// top of them: bwrap binds from the host's view, which would
		// cover what was mounted beneath before.
		for _, d := range p.pin {
			a = append(a, "--bind", d, d)
		}
		// Every .git and what git runs from (hooks, gitdir targets),
		// every hard-linked file read-only, sockets hidden.
		a = append(a, p.mounts(s.dir)...)
		for _, h := range s.insideHidden() {
			a = append(a, hide(h)...)
		}
	}
	if s.seccomp != nil {
		// The filter comes on the command's first extra file (fd 3):
		// seccompPipe.
		a = append(a, "--seccomp", "3")
	}
	return append(a, "--chdir", cmp.Or(l.chdir, s.dir), "--")
}

// insideHidden returns Config.Hide's paths inside the workspace that
// exist, with symlinks resolved; the workspace's .nightshift is guarded
// by the plan (guardStateDir) and left out.
func (s *Sandbox) insideHidden() []string {
	var out []string
	sd := filepath.Join(s.dir, workspace.StateDirName)
	for _, h := range s.cfg.Hide {
		real, err := filepath.EvalSymlinks(h)
		if err != nil || real == s.dir || !under(real, s.dir) || under(real, sd) {
			continue
		}
		out = append(out, real)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

var (
	procOnce sync.Once
	procList []string
)

// procEntries returns the entries of /proc that are not a process's
// folder (nor self or thread-self, nor a symlink) and may be written: its
// folders (sys, irq, bus, pressure, fs, driver, ...) and its files with a
// write bit (sysrq-trigger, mtrr, ...), the kernel's knobs rather than
// the command's own processes. They are bound read-only over the
// sandbox's /proc, from the host's /proc; what is under /proc/sys
// follows the reader's namespaces either way. (The files without a
// write bit are left alone: each mount costs bubblewrap a pass over the
// mount table.)
func procEntries() []string {
	procOnce.Do(func() {
		ents, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		for _, e := range ents {
			n := e.Name()
			if n == "self" || n == "thread-self" || n[0] >= '0' && n[0] <= '9' || e.Type()&fs.ModeSymlink != 0 {
				continue
			}
			if fi, err := e.Info(); err != nil || !fi.IsDir() && fi.Mode().Perm()&0o222 == 0 {
				continue
			}
			procList = append(procList, filepath.Join("/proc", n))
		}
	})
	return procList
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
// installed, commands run without it, with a warning. A success is kept
// in the cache file (probecache.go), when there is one, and a record
// there with the key of now spares the probe.
func probeBwrap(program, cache string) probed {
	probeMu.Lock()
	defer probeMu.Unlock()
	if r, ok := probeResult[program]; ok {
		return r
	}
	r := probed{}
	path, err := exec.LookPath(program)
	if err != nil {
		r.err = fmt.Errorf("%w (%s)", ErrNoBwrap, program)
		probeResult[program] = r
		return r
	}
	f := seccompFilter()
	key, kerr := keyOf(path, f)
	if kerr == nil && cachedSuccess(cache, key) {
		r = probed{path: path, seccomp: f}
		probeResult[program] = r
		return r
	}
	r.path, r.err = path, tryBwrap(path, nil)
	if r.err == nil && f != nil {
		if r.seccompErr = tryBwrap(path, f); r.seccompErr == nil {
			r.seccomp = f
		}
	}
	if kerr == nil && r.err == nil && r.seccompErr == nil {
		cacheSuccess(cache, key)
	}
	probeResult[program] = r
	return r
}

// lookOutside returns program as exec.LookPath would find it on PATH,
// but never in a PATH entry that is relative or lies inside the
// workspace ws (a project's bin/ or node_modules/.bin on the user's
// PATH): a run's commands can write there, and bwrap is started with
// the user's rights, outside any sandbox, by the next nightshift in
// that workspace. A program given with a slash is taken as it is. What
// it returns is what probeBwrap then looks up (an absolute path, or the
// name unchanged when no entry outside holds it, which LookPath then
// fails to find).
func lookOutside(program, ws string) string {
	if strings.ContainsRune(program, filepath.Separator) {
		return program
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, program)
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || under(real, ws) {
			continue
		}
		if d, err := filepath.EvalSymlinks(dir); err != nil || under(d, ws) {
			continue
		}
		return p
	}
	return program
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
	c := exec.CommandContext(ctx, path, append(s.bwrapArgs(nil, launch{}), "/bin/sh", "-c", "exit 0")...)
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
