//go:build linux

package sandbox

import (
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// pidns is how a command under None gets a PID namespace of its own.
type pidns int

const (
	noPidns    pidns = iota // the kernel refused both ways
	newPid                  // CLONE_NEWPID: we may (root, or CAP_SYS_ADMIN)
	newUserPid              // CLONE_NEWUSER|CLONE_NEWPID: an unprivileged user may, where user namespaces are allowed
)

var (
	pidnsOnce sync.Once
	pidnsWay  pidns
)

// probePidns finds, once per process, the first way the kernel lets us
// start a process in a PID namespace of its own.
func probePidns() pidns {
	pidnsOnce.Do(func() {
		for _, way := range []pidns{newPid, newUserPid} {
			c := exec.Command("/bin/sh", "-c", "exit 0")
			c.Env = []string{}
			c.SysProcAttr = way.attr()
			if c.Run() == nil {
				pidnsWay = way
				return
			}
		}
	})
	return pidnsWay
}

// attr is the start of every command under None: its own session (no
// controlling terminal, its own process group to kill), killed when we
// die, and in its own PID namespace when there is a way.
func (p pidns) attr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	switch p {
	case newPid:
		a.Cloneflags = syscall.CLONE_NEWPID
	case newUserPid:
		a.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID
		// The same user and group inside as outside, so that files look
		// the same to the command as to us.
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
		a.GidMappingsEnableSetgroups = false
	}
	return a
}

// bwrapAttr is the start of bwrap: its own session, killed when we die.
// bwrap passes the parent-death signal on (--die-with-parent).
func bwrapAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// links returns the number of hard links of the file fi describes.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// idOf tells this state of the file fi describes from another: its
// device, inode, mode and status-change time.
func idOf(fi fs.FileInfo) fileID {
	id := fileID{mode: fi.Mode()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), st.Ino
		id.ctimeNsec = st.Ctim.Sec*1e9 + st.Ctim.Nsec
	}
	return id
}
