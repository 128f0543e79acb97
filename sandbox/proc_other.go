//go:build unix && !linux

package sandbox

import "syscall"

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
