//go:build unix && !linux

package sandbox

import (
	"io/fs"
	"syscall"
)

// pidns is how a command under None gets a PID namespace of its own:
// only Linux has them.
type pidns int

const noPidns pidns = 0

func probePidns() pidns { return noPidns }

// attr gives the command its own session: no controlling terminal, and a
// process group of its own to kill. There is no parent-death signal
// outside Linux.
func (p pidns) attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

func bwrapAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

func idOf(fi fs.FileInfo) fileID {
	id := fileID{mode: fi.Mode()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), st.Ino
		id.ctimeNsec = st.Ctimespec.Sec*1e9 + st.Ctimespec.Nsec
	}
	return id
}
