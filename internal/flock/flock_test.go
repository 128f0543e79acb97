//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package flock_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nightshift-dev/nightshift/internal/flock"
	"github.com/nightshift-dev/nightshift/internal/testenv"
)

// TestMain starts the tests without the credentials of whoever runs them.
func TestMain(m *testing.M) { testenv.Main(m) }

// TestALockedFileCannotBeTakenUntilItIsReleased: flock locks belong to
// the open file, so a second open of the same file stands for another
// process.
func TestALockedFileCannotBeTakenUntilItIsReleased(t *testing.T) {
	name := filepath.Join(t.TempDir(), "state.json")
	open := func() *os.File {
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open(), open()
	if err := flock.Lock(a); err != nil {
		t.Fatal(err)
	}
	if err := flock.TryLock(b); err == nil {
		t.Fatal("a second holder took a held lock")
	}
	if err := flock.Unlock(a); err != nil {
		t.Fatal(err)
	}
	if err := flock.TryLock(b); err != nil {
		t.Fatalf("the released lock could not be taken: %v", err)
	}
}

func TestAliveTellsALiveProcessFromNone(t *testing.T) {
	if !flock.Alive(os.Getpid()) {
		t.Error("this process is not alive")
	}
	// Beyond the kernel's largest pid (4,194,304 on Linux): no process.
	if flock.Alive(1 << 30) {
		t.Error("a process that cannot exist is alive")
	}
}
