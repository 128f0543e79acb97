package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"

	"github.com/nightshift-dev/nightshift/internal/crashpoint"
)

// The environment of a child that is to die at a crash point.
const (
	// crashAtEnv: the child kills itself with SIGKILL at the k-th crash
	// point it reaches.
	crashAtEnv = "NIGHTSHIFT_TEST_CRASH_AT"
	// crashLogEnv: the child appends the name of every crash point it
	// reaches to this file, one a line, the fatal one included.
	crashLogEnv = "NIGHTSHIFT_TEST_CRASH_LOG"
)

// installCrashPoint arms the crash points of a child started as nightshift
// (see startChild), as its environment says. Without that environment it
// does nothing.
func installCrashPoint() {
	at, _ := strconv.Atoi(os.Getenv(crashAtEnv))
	logPath := os.Getenv(crashLogEnv)
	if at == 0 && logPath == "" {
		return
	}
	var log *os.File
	if logPath != "" {
		f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintln(os.Stderr, "crash log:", err)
			os.Exit(1)
		}
		log = f
	}
	var mu sync.Mutex
	n := 0
	crashpoint.Set(func(name string) {
		mu.Lock()
		defer mu.Unlock()
		n++
		if log != nil {
			fmt.Fprintf(log, "%d %s\n", n, name)
		}
		if n == at {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	})
}
