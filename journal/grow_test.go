package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Issue 25 (the trust review): a file was hashed, and saved, until its
// end, however far that was from the size it had when it was stat'ed: a
// file that something keeps writing (a process that outlived its
// command under --sandbox none without a PID namespace, a server's log)
// was read, and copied into the journal, for as long as it grew. It is
// read up to its size at the stat.
func TestAFileThatGrowsWhileHashedIsReadUpToItsSizeAtTheStat(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(p, bytes.Repeat([]byte("line\n"), 100_000), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var saved bytes.Buffer
	const atStat = 1000 // what it held when stat'ed; the rest came since
	h, err := hashFile(t.Context(), f, atStat, &saved, func() error { saved.Reset(); return nil }, false)
	if err != nil {
		t.Fatal(err)
	}
	if h.size != atStat || saved.Len() > atStat+64 {
		t.Errorf("hashed %d bytes and saved %d, want the %d it had at the stat", h.size, saved.Len(), atStat)
	}
}
