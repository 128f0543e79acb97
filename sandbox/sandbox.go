package sandbox

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nightshift-dev/nightshift/redact"
)

// Mode says how commands are confined.
type Mode string

// The modes. Auto resolves to Bwrap or None when a Sandbox is made.
const (
	Auto  Mode = "auto"
	Bwrap Mode = "bwrap"
	None  Mode = "none"
)

// Modes lists the modes, for messages.
const Modes = "auto, bwrap or none"

// ParseMode reads a --sandbox value; "" is Auto.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return Auto, nil
	case Auto, Bwrap, None:
		return m, nil
	}
	return "", fmt.Errorf("sandbox %q: want %s", s, Modes)
}

// DefaultShell runs the command line as `DefaultShell -c LINE`.
const DefaultShell = "/bin/sh"

// Config says how to start commands. Zero fields take the defaults.
type Config struct {
	// Mode is Auto (the default), Bwrap or None.
	Mode Mode
	// Dir is the workspace: the command's working directory and, under
	// bwrap, the one folder it may change (besides its private /tmp).
	// Required.
	Dir string
	// Net lets a bwrap'd command reach the network. Default false: it has
	// a network namespace of its own with only a loopback device.
	Net bool
	// Env names variables that the command gets from Environ on top of
	// the allow-list (AllowedEnv), as --env NAME does. A name that looks
	// like a credential, or whose value holds a password, is refused by
	// New: a command never gets one.
	Env []string
	// Set holds variables (NAME=VALUE) nightshift itself gives every
	// command, on top of what the allow-list picks: the journal's mark,
	// by which `nightshift recover` finds a command that outlived its run.
	// A credential-like one is refused as with Env.
	Set []string
	// Hide lists more paths the command must not see, such as a
	// workspace's own state folder. Under bwrap a folder is replaced by an
	// empty one and a file by an empty file. nightshift's state directory
	// (statedir.Base) and HiddenHome's paths are always hidden. Paths that
	// do not exist are skipped.
	Hide []string
	// Environ is where the variables come from; nil means os.Environ().
	Environ []string
	// Shell runs each line as `Shell -c LINE`; default DefaultShell.
	Shell string
	// Bwrap is the bubblewrap program; default "bwrap", found on PATH.
	Bwrap string
	// ProbeCache is a file where the probe of bubblewrap (does it work
	// here, with the seccomp filter?) keeps its success for the next
	// processes, keyed by bubblewrap's file, the kernel, the boot, the
	// user namespace sysctls, the namespaces and the user
	// (ProbeCacheFile). It must lie where no command can write: in
	// nightshift's state directory, which is outside every workspace
	// and hidden from commands. Default "": probe once per process.
	ProbeCache string
}

// Sandbox starts commands as its Config says. It is safe for concurrent
// use.
type Sandbox struct {
	cfg        Config
	mode       Mode // Bwrap or None, never Auto
	dir        string
	env        []string
	outsideEnv []string // env without bwrap's adjustments: OutsideEnv
	warnings   []string
	bwrap      string // the bwrap program's path
	seccomp    []byte // the seccomp filter under bwrap; nil for none
	pidns      pidns  // how None isolates the command's processes

	// outside is what commands must not see outside the workspace,
	// found once (outsideHidden).
	outside *onceHidden
}

// onceHidden holds what outsideHidden found.
type onceHidden struct {
	once  sync.Once
	paths []string
}

// New resolves the mode and prepares the command line and environment.
// It fails when Mode is Bwrap and bubblewrap is missing or does not work
// here, when Dir is not a folder, or when Env names a credential: each is
// a usage error, before anything runs.
func New(cfg Config) (*Sandbox, error) {
	mode, err := ParseMode(string(cfg.Mode))
	if err != nil {
		return nil, configError{err}
	}
	if cfg.Dir == "" {
		return nil, errors.New("sandbox: Config.Dir is required")
	}
	dir, err := realDir(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	cfg.Shell = cmp.Or(cfg.Shell, DefaultShell)
	cfg.Bwrap = cmp.Or(cfg.Bwrap, "bwrap")
	if cfg.Environ == nil {
		cfg.Environ = os.Environ()
	}
	env, err := buildEnv(cfg.Environ, cfg.Env)
	if err != nil {
		return nil, configError{err}
	}
	for _, kv := range cfg.Set {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !varName.MatchString(name) || redact.IsCredentialName(name) || redact.HasPassword(value) {
			return nil, configError{fmt.Errorf("sandbox: %q cannot be given to commands", name)}
		}
		env = append(slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, name+"=") }), kv)
	}
	s := &Sandbox{cfg: cfg, dir: dir, env: env, outsideEnv: slices.Clone(env), outside: &onceHidden{}}

	switch mode {
	case Bwrap, Auto:
		p := probeBwrap(lookOutside(cfg.Bwrap, dir), cfg.ProbeCache)
		path, perr := p.path, p.err
		if perr == nil {
			s.mode, s.bwrap, s.seccomp = Bwrap, path, p.seccomp
			if p.seccompErr != nil {
				s.warnings = append(s.warnings, fmt.Sprintf("commands run without the seccomp filter: %v", p.seccompErr))
			}
			break
		}
		if mode == Bwrap {
			return nil, configError{fmt.Errorf("--sandbox bwrap: %w; %s, or choose --sandbox none", perr, installHint)}
		}
		s.mode = None
		s.warnings = append(s.warnings, fmt.Sprintf(
			"no sandbox: %v, so commands run with your rights and can read and change anything you can (%s, or say --sandbox none to accept this)",
			perr, installHint))
	case None:
		s.mode = None
		s.warnings = append(s.warnings,
			"no sandbox (--sandbox none): commands run with your rights and can read and change anything you can")
	}
	if s.mode == Bwrap {
		s.env = withBwrapEnv(s.env)
		// What is hidden outside the workspace is found once, before
		// the first command (Prepare, outsideHidden): a run that starts
		// none (an answer without a command) does not pay for the scan
		// at its start, nor in the background beside its model call,
		// where it cost a 0-step run half its time on two busy cores.
		return s, nil
	}
	s.pidns = probePidns()
	if s.pidns == noPidns && pidnsWarned.CompareAndSwap(false, true) {
		s.warnings = append(s.warnings, "this kernel gives commands no PID namespace of their own: a process a command starts in the background and detaches may outlive it")
	}
	return s, nil
}

// ErrConfig is matched by the errors of New that a person fixes by asking
// for something else (a usage error): an unknown mode, --sandbox bwrap
// without a working bubblewrap, --env naming a credential.
var ErrConfig = errors.New("sandbox: cannot be had as asked")

type configError struct{ err error }

func (e configError) Error() string        { return e.err.Error() }
func (e configError) Unwrap() error        { return e.err }
func (e configError) Is(target error) bool { return target == ErrConfig }

// installHint says how to get bubblewrap.
const installHint = "install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"

// pidnsWarned makes the missing-PID-namespace warning once per process.
var pidnsWarned atomic.Bool

// Mode returns the mode in force: Bwrap or None.
func (s *Sandbox) Mode() Mode { return s.mode }

// Dir returns the workspace's real path, where commands start.
func (s *Sandbox) Dir() string { return s.dir }

// Net reports whether commands may reach the network. Under None they
// always can.
func (s *Sandbox) Net() bool { return s.mode == None || s.cfg.Net }

// Env returns the environment commands get.
func (s *Sandbox) Env() []string { return slices.Clone(s.env) }

// OutsideEnv returns the environment for a process nightshift starts
// outside the sandbox in any mode, such as a stdio MCP server: what Env
// holds (the allow-list, Config.Env's variables and Config.Set) without
// the changes bwrap's private /tmp needs (TMPDIR, XDG_CACHE_HOME).
func (s *Sandbox) OutsideEnv() []string { return slices.Clone(s.outsideEnv) }

// Warnings returns what the person running nightshift should be told
// about this sandbox, one line each, without a prefix: that there is
// none, and why. A warning about the kernel comes once per process.
func (s *Sandbox) Warnings() []string { return slices.Clone(s.warnings) }

// String names the sandbox in one word, for a run's start event: "bwrap"
// (no network), "bwrap+net" or "none".
func (s *Sandbox) String() string {
	if s.mode == Bwrap && s.cfg.Net {
		return "bwrap+net"
	}
	return string(s.mode)
}

// realDir returns dir made absolute with its symlinks resolved, so that
// bubblewrap binds the folder itself.
func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a folder", dir)
	}
	return real, nil
}
