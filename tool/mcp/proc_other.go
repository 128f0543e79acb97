//go:build !linux

package mcp

import "syscall"

// procAttr is nil where there is no parent-death signal: the server is
// stopped when the run ends, but not when nightshift is killed.
func procAttr() *syscall.SysProcAttr { return nil }
