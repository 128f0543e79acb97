//go:build unix

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
