//go:build unix

package verify

import (
	"os/exec"
	"syscall"
)

// killGroup runs the command in its own process group and kills the whole
// group on timeout, so a test runner's children die with it.
func killGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error {
		return syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	}
}
