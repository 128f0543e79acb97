package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// MarkEnv is the environment variable that marks the processes a run
// starts (its commands) with the workspace they work in. A command may
// outlive the run that started it (nightshift killed with -9); recover
// finds it by its mark and refuses to restore the workspace under its
// feet.
const MarkEnv = "NIGHTSHIFT_JOURNAL"

// Mark returns MarkEnv=<the workspace's real path>, to add to the
// environment of every command a run in the workspace dir starts.
func Mark(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return MarkEnv + "=" + dir
}

// procDir is where the kernel describes processes (Linux).
var procDir = "/proc"

// procStart returns when process pid started, in clock ticks after boot
// (field 22 of /proc/PID/stat): with the PID, it names one process, since
// a PID is reused only by a process that starts later. 0 when unknown.
func procStart(pid int) uint64 {
	b, err := os.ReadFile(filepath.Join(procDir, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	// The command name (field 2) is in parentheses and may hold spaces
	// or parentheses itself: count fields after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0
	}
	n, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// sameProcess reports whether the process pid is the one that started at
// start; when the start time is not known, whether pid is alive at all.
func sameProcess(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	now := procStart(pid)
	if start == 0 || now == 0 {
		_, err := os.Stat(filepath.Join(procDir, strconv.Itoa(pid)))
		return err == nil
	}
	return now == start
}

// marked returns the processes whose environment holds mark (NAME=value),
// other than this one. Another user's processes cannot be read and are
// not listed; a process that is gone but not yet reaped has no
// environment left and is not listed either.
func marked(mark string) []int {
	entries, err := os.ReadDir(procDir)
	if err != nil {
		return nil
	}
	needle := []byte(mark + "\x00")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join(procDir, e.Name(), "environ"))
		if err != nil {
			continue
		}
		env = append(env, 0) // the last entry may lack its terminator
		if bytes.HasPrefix(env, needle) || bytes.Contains(env, append([]byte{0}, needle...)) {
			out = append(out, pid)
		}
	}
	return out
}
