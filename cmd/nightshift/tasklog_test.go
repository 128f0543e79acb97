package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Issue 25 (the trust review): a batch task's log, WORK/NNN-name.log,
// was opened with os.Create, which follows a symlink and waits on a
// FIFO: a command under --sandbox none could put `002-next.log ->
// ~/.bashrc` there for the next task, or a FIFO that hung the batch.
// Neither is followed nor waited on.
func TestATaskLogIsNeverWrittenThroughALinkNorWaitedOn(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "bashrc")
	writeFiles(t, dir, map[string]string{"bashrc": "export PATH=$PATH:~/bin\n"})
	link := filepath.Join(dir, "ws", "sub.log")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := openTaskLog(link); err == nil || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("openTaskLog through a symlink: %v, want an error saying to remove it", err)
	}
	if got := readFile(t, victim); got != "export PATH=$PATH:~/bin\n" {
		t.Errorf("the file the link named was written: %q", got)
	}
	fifo := filepath.Join(dir, "ws", "fifo.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := openTaskLog(fifo); err == nil {
		t.Error("openTaskLog on a FIFO: no error")
	}
	f, release, err := openTaskLog(filepath.Join(dir, "ws", "ok.log"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	release()
}
