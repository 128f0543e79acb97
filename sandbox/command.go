//go:build unix

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// Options says how a long-lived program that Command starts (a stdio MCP
// server) differs from a command. Zero fields take the defaults.
type Options struct {
	// Dir is its working directory; default the workspace. Under bwrap
	// a folder outside the workspace must be visible there: one of
	// ReadOnly or ReadWrite, or one that nothing hides.
	Dir string
	// Net gives it the network under bwrap, as Config.Net gives commands;
	// default false. (Under none it always has it.)
	Net bool
	// ReadOnly and ReadWrite are paths outside the workspace bound into
	// the sandbox under bwrap, over what it hides (its private /tmp,
	// nightshift's state directory): the program itself when it lies
	// there, a start folder, a cache.
	ReadOnly, ReadWrite []string
	// Env is its whole environment; default Env().
	Env []string
}

// Command returns a command that runs argv as Config.Mode says: under
// bwrap in the same sandbox as the commands Run starts (the workspace
// read-write with the same read-only and hidden paths, found now and
// kept for the program's life, the rest read-only, credentials hidden,
// the seccomp filter, its own namespaces, killed when nightshift dies),
// under none directly. One difference: a protected path that does not
// exist yet (a hooks folder a config names) gets no placeholder, which
// would stand in the workspace for the program's whole life, where the
// run's own look at the workspace would meet it; .nightshift does. The caller starts it, and calls release once it
// has ended, which removes the placeholders its mounts needed. argv[0]
// should be an absolute path: it is not looked up in the workspace.
func (s *Sandbox) Command(ctx context.Context, argv []string, o Options) (cmd *exec.Cmd, release func(), err error) {
	if len(argv) == 0 {
		return nil, nil, errors.New("sandbox: no program to start")
	}
	env := o.Env
	if env == nil {
		env = s.Env()
	}
	dir := o.Dir
	if dir == "" {
		dir = s.dir
	}
	if s.mode != Bwrap {
		cmd = exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = dir, env
		cmd.SysProcAttr = bwrapAttr() // its own session, killed when we die
		return cmd, func() {}, nil
	}
	p := s.planWith(ctx, true)
	if p.refused != "" {
		p.release()
		return nil, nil, fmt.Errorf("sandbox: not started: %s", p.refused)
	}
	args := append(s.bwrapArgs(p, launch{net: o.Net, chdir: dir, ro: o.ReadOnly, rw: o.ReadWrite}), argv...)
	cmd = exec.Command(s.bwrap, args...)
	cmd.Dir = "/" // bwrap goes to dir inside
	cmd.Env = env
	cmd.SysProcAttr = bwrapAttr()
	var filter *os.File
	if s.seccomp != nil {
		if filter, err = seccompPipe(s.seccomp); err != nil {
			p.release()
			return nil, nil, err
		}
		cmd.ExtraFiles = []*os.File{filter}
	}
	return cmd, func() {
		if filter != nil {
			filter.Close()
		}
		p.release()
	}, nil
}
