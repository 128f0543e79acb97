//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nobody is the user the tests run again as, when they run as root.
const nobody = 65534

// TestTheSandboxHoldsForAnUnprivilegedUser runs this package's tests
// again as an unprivileged user, when they run as root (as CI does), so
// that every sandbox test holds both ways: root in the namespace has
// what an unprivileged user has not (/proc/sys, a setuid bit that means
// root), and an unprivileged user's bubblewrap works in a user namespace
// that root's does not need. Run as any other user, the tests have run
// that way already.
func TestTheSandboxHoldsForAnUnprivilegedUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("run as root, the tests run again as an unprivileged user; here they already are one")
	}
	needBwrap(t)
	if testing.Short() {
		t.Skip("-short: the tests do not run twice")
	}
	// A folder the other user can read: the test binary and a home.
	dir, err := os.MkdirTemp("/var/tmp", "nightshift-unprivileged-")
	if err != nil {
		t.Skipf("needs a folder outside /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "home")
	for _, d := range []string{dir, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(home, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sandbox.test")
	copyFile(t, mustExe(t), bin)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8"}
	run := func(args ...string) (string, error) {
		c := exec.Command(args[0], args[1:]...)
		c.Dir = dir
		c.Env = env
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		err := c.Run()
		return out.String(), err
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip(err)
	}
	if out, err := run(bwrap, "--unshare-all", "--ro-bind", "/", "/", "--", "/bin/true"); err != nil {
		t.Skipf("bubblewrap does not work for an unprivileged user here (user namespaces forbidden?): %v %s", err, strings.TrimSpace(out))
	}
	out, err := run(bin, "-test.count=1", "-test.v", "-test.skip=^TestTheSandboxHoldsForAnUnprivilegedUser$")
	if err != nil {
		t.Fatalf("as uid %d: %v\n%s", nobody, err, out)
	}
	// What ran, and what skipped: a skip there is a test that did not
	// hold both ways.
	var passed int
	for line := range strings.Lines(out) {
		switch l := strings.TrimSpace(line); {
		case strings.HasPrefix(l, "--- PASS"):
			passed++
		case strings.HasPrefix(l, "--- SKIP"):
			t.Logf("as uid %d: %s", nobody, l)
		}
	}
	if passed == 0 {
		t.Fatalf("as uid %d, no test ran:\n%s", nobody, out)
	}
	t.Logf("as uid %d: %d tests and subtests passed", nobody, passed)
}
