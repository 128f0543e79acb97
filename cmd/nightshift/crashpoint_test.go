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
	// stallAtEnv: the child stops at the first crash point of this name,
	// says so on stderr ("stalled at NAME") and waits there for SIGINT or
	// SIGTERM, then goes on: a signal that arrives exactly there, for a
	// command too quick to catch midway otherwise.
	stallAtEnv = "NIGHTSHIFT_TEST_STALL_AT"
)

// stalledAt is the line a child stopped at a crash point writes.
const stalledAt = "stalled at "

// installCrashPoint arms the crash points of a child started as nightshift
// (see startChild), as its environment says. Without that environment it
// does nothing.
func installCrashPoint() {
	at, _ := strconv.Atoi(os.Getenv(crashAtEnv))
	logPath := os.Getenv(crashLogEnv)
	stall := os.Getenv(stallAtEnv)
	if at == 0 && logPath == "" && stall == "" {
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
		if name == stall {
			stall = ""
			fmt.Fprintln(os.Stderr, stalledAt+name)
			// Main's handler cancels the command's context; the work
			// goes on only once that is done, as it would had the
			// signal come here (waiting for the signal itself raced
			// with the cancel: the next check of the context could
			// come first).
			<-cancelledBySignal
		}
		if n == at {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	})
}
