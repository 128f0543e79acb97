package mcp

import "syscall"

// procAttr makes a stdio server die with nightshift: a server must not
// outlive the run that started it, even when nightshift is killed.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
