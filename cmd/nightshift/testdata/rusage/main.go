// Command rusage runs a program and reports its peak resident memory and
// CPU time, read from the rusage its exit brings, for BenchmarkStart.
//
//	rusage PROGRAM [ARG...]
//
// It exists because the Linux kernel starts a process's peak RSS at the
// peak of the process that started it (exec keeps the larger of the old
// and new memory's high-water marks, and Go starts children sharing its
// memory until they exec): measured straight from a test binary, which
// is as large as nightshift, a nightshift under 25 MiB would read as
// the test binary's 45. Started from this small program, it reads as
// itself.
//
// The last line on stderr is "rusage: maxrss=KIB utime=NS stime=NS";
// the exit status is the program's.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: rusage PROGRAM [ARG...]")
		os.Exit(2)
	}
	c := exec.Command(os.Args[1], os.Args[2:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := c.Run()
	if c.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "rusage:", err)
		os.Exit(1)
	}
	ru := c.ProcessState.SysUsage().(*syscall.Rusage)
	fmt.Fprintf(os.Stderr, "rusage: maxrss=%d utime=%d stime=%d\n", ru.Maxrss, ru.Utime.Nano(), ru.Stime.Nano())
	os.Exit(c.ProcessState.ExitCode())
}
