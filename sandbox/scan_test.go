//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// Issue 25 (the trust review): the scan outside the workspace was
// bounded in the entries it looked at, but read each folder whole
// first: one folder of 300,000 files in the home (a cache, a mail
// folder) cost 750 ms per run, and a folder of millions as much as it
// holds, memory included; the folders that hold the workspace were read
// whole too. Each folder is read only up to what is left of the bound.
func TestTheScanOutsideTheWorkspaceReadsNoMoreThanItsBound(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	big := filepath.Join(home, "big")
	if err := os.MkdirAll(big, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 3000 {
		if err := os.WriteFile(filepath.Join(big, "f"+strconv.Itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := scanReadDir.Load()
	scan(home, filepath.Join(base, "ws"), 4, 100)
	if n := scanReadDir.Load() - before; n > 100 {
		t.Errorf("the scan read %d entries, past its bound of 100", n)
	}

}

// Issue 25 (the trust review): every sandbox.New under bwrap scanned the
// homes, also the ones made only to check that a sandbox can be had (a
// batch's every task, a night's builder): a batch of 3,000 tasks paid
// for 3,000 scans before its first. The scan is made once per sandbox,
// by Prepare or at its first command.
func TestTheScanOutsideTheWorkspaceIsMadeOncePerSandboxAndOnlyWhenUsed(t *testing.T) {
	needBwrap(t)
	ws := t.TempDir()
	before := scanReadDir.Load()
	sb := newSandbox(t, Config{Mode: Bwrap, Dir: ws})
	if n := scanReadDir.Load() - before; n != 0 {
		t.Errorf("New scanned %d entries; it should leave the scan to Prepare or the first command", n)
	}
	sb.Prepare()
	once := scanReadDir.Load() - before
	expect(t, sb, "echo one", "one\n")
	expect(t, sb, "echo two", "two\n")
	if n := scanReadDir.Load() - before; n != once {
		t.Errorf("the commands scanned again: %d entries after Prepare's %d", n, once)
	}
}
