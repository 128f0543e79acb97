//go:build linux && (amd64 || arm64)

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// syscallsEnv makes the test binary try the denied system calls that
// work without privileges, and print how each went (see TestMain).
const syscallsEnv = "NIGHTSHIFT_SECCOMP_TRY"

func trySyscalls() int {
	try := func(name string, nr, a1, a2 uintptr) {
		_, _, e := unix.Syscall(nr, a1, a2, 0)
		res := "ok"
		if e != 0 {
			res = unix.ErrnoName(e)
		}
		fmt.Printf("%s=%s\n", name, res)
	}
	try("getpid", unix.SYS_GETPID, 0, 0)
	try("keyctl", unix.SYS_KEYCTL, unix.KEYCTL_GET_KEYRING_ID, uintptr(unix.KEY_SPEC_PROCESS_KEYRING&0xffffffff))
	try("userfaultfd", unix.SYS_USERFAULTFD, 0, 0)
	try("ptrace", unix.SYS_PTRACE, unix.PTRACE_TRACEME, 0)
	// One entry and no parameters: EFAULT where io_uring is there,
	// ENOSYS where the kernel lacks it, EPERM only from the filter (or a
	// kernel that forbids it, kernel.io_uring_disabled=2).
	try("io_uring_setup", unix.SYS_IO_URING_SETUP, 1, 0)
	return 0
}

// Regression: a command under bwrap could call ptrace, keyctl (the
// kernel's keyrings are not confined by the sandbox's namespaces), bpf,
// perf_event_open, io_uring (issue 25) and the rest of Denied; the seccomp filter refuses them
// with EPERM, and leaves every other call alone.
func TestBwrapSeccompDeniesWithEPERM(t *testing.T) {
	needBwrap(t)
	t.Setenv(syscallsEnv, "1")
	sb := newSandbox(t, Config{Mode: Bwrap, Dir: t.TempDir(), Env: []string{syscallsEnv}})
	if sb.seccomp == nil {
		t.Fatalf("no seccomp filter under bwrap here: %q", sb.Warnings())
	}
	// The test binary, where the sandbox can run it: in the workspace.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	copyFile(t, exe, filepath.Join(sb.dir, "try"))

	out, exit := runLine(t, sb, "./try")
	want := "getpid=ok\nkeyctl=EPERM\nuserfaultfd=EPERM\nptrace=EPERM\nio_uring_setup=EPERM\n"
	if out != want || !exit.OK() {
		t.Errorf("with the filter: %s, got\n%s\nwant\n%s", exit, out, want)
	}
	if out, _ := runLine(t, sb, "{ dd if=/dev/zero of=/dev/null bs=1k count=1 && echo ordinary calls work; } 2>/dev/null"); out != "ordinary calls work\n" {
		t.Errorf("an ordinary command under the filter: %q", out)
	}

	// Without the filter the same calls are not refused so: the test
	// tells the filter's work from the sandbox's.
	plain := *sb
	plain.seccomp = nil
	out, _ = runLine(t, &plain, "./try")
	t.Logf("without the filter:\n%s", out)
	names := []string{"keyctl", "ptrace"}
	if b, err := os.ReadFile("/proc/sys/kernel/io_uring_disabled"); err != nil || strings.TrimSpace(string(b)) != "2" {
		names = append(names, "io_uring_setup")
	}
	for _, name := range names {
		if strings.Contains(out, name+"=EPERM") {
			t.Errorf("without the filter %s is refused already, so the test proves nothing for it:\n%s", name, out)
		}
	}
}

func TestTheSeccompFilterListsEveryDeniedCall(t *testing.T) {
	if len(denied) != len(Denied) {
		t.Fatalf("%d names, %d numbers", len(Denied), len(denied))
	}
	if n := len(seccompFilter()); n != 8*(6+len(denied)) {
		t.Errorf("filter of %d bytes, want %d instructions", n, 6+len(denied))
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		t.Fatal(err)
	}
}
