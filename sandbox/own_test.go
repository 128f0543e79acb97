//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/internal/ownfiles"
)

// Issue 25 (the trust review): nightshift's own files in the workspace
// (--events with --dir ., the ledger's SQLite files) were writable by
// commands, and the journal leaves them out of its rollback: a command
// could read the night's ledger, cut the events, or plant a rollback
// journal beside the ledger (night.db-journal) that SQLite plays back
// into it the next time it opens it. They are bound to /dev/null for
// commands, and one that does not exist yet gets a placeholder for the
// command's lifetime.
func TestBwrapKeepsNightshiftsOwnFilesOutOfReach(t *testing.T) {
	needBwrap(t)
	ws := t.TempDir()
	events := filepath.Join(ws, "events.jsonl")
	db := filepath.Join(ws, "state", "night.db")
	writeFile(t, events, `{"type":"turn","text":"the conversation"}`+"\n", 0o644)
	writeFile(t, db, "SQLite format 3\x00 the ledger", 0o644)
	writeFile(t, db+"-wal", "wal", 0o644)
	defer ownfiles.Add(events)()
	defer ownfiles.AddSQLite(db)()
	sb := newSandbox(t, Config{Mode: Bwrap, Dir: ws})

	out, _ := runLine(t, sb, `cat events.jsonl state/night.db state/night.db-wal; echo x >> events.jsonl; echo hot > state/night.db-journal
rm -f events.jsonl state/night.db 2>/dev/null; mv state/night.db-wal elsewhere 2>/dev/null; ln -s /etc/passwd state/night.db-shm 2>/dev/null; echo done`)
	if strings.Contains(out, "conversation") || strings.Contains(out, "ledger") || strings.Contains(out, "wal") {
		t.Errorf("the command read nightshift's own files: %q", out)
	}
	if !strings.Contains(out, "done") {
		t.Errorf("output %q", out)
	}
	if got := readString(t, events); got != `{"type":"turn","text":"the conversation"}`+"\n" {
		t.Errorf("events.jsonl = %q", got)
	}
	if got := readString(t, db); got != "SQLite format 3\x00 the ledger" {
		t.Errorf("night.db = %q", got)
	}
	if got := readString(t, db+"-wal"); got != "wal" {
		t.Errorf("night.db-wal = %q", got)
	}
	for _, p := range []string{db + "-journal", db + "-shm", filepath.Join(ws, "state", "elsewhere")} {
		if fi, err := os.Lstat(p); err == nil {
			t.Errorf("%s is there after the command (%v): a command made one of nightshift's own files, or the placeholder stayed", p, fi.Mode())
		}
	}
	// nightshift itself still writes them while a command runs.
	f, err := os.OpenFile(events, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("more\n"); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, events); !strings.HasSuffix(got, "more\n") {
		t.Errorf("events.jsonl = %q", got)
	}
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Issue 25 (the trust review): the folder that holds one of
// nightshift's own files (--html out/report.html, --db state/night.db)
// could be moved aside by a command and a symlink left in its place:
// nightshift, outside the sandbox, then wrote its report page (and
// SQLite its files) where the link led. Such folders cannot be moved or
// removed by a command.
func TestBwrapCommandsCannotMoveTheFolderOfNightshiftsOwnFiles(t *testing.T) {
	needBwrap(t)
	ws := t.TempDir()
	page := filepath.Join(ws, "out", "pages", "report.html")
	if err := os.MkdirAll(filepath.Dir(page), 0o755); err != nil {
		t.Fatal(err)
	}
	defer ownfiles.Add(page)() // not written yet: the night writes it at its end
	sb := newSandbox(t, Config{Mode: Bwrap, Dir: ws})
	for _, line := range []string{
		"mv out elsewhere && ln -s /etc out",
		"mv out/pages out/p && ln -s /etc out/pages",
		"rm -rf out/pages; ln -s /etc out/pages",
		"rm -rf out; ln -s /etc out",
	} {
		runLine(t, sb, line+" 2>/dev/null; echo x > out/pages/other.txt 2>/dev/null; true")
		fi, err := os.Lstat(filepath.Dir(page))
		if err != nil || !fi.IsDir() {
			t.Fatalf("after %q the page's folder is %v, %v: a command moved it", line, fi, err)
		}
		if fi, err := os.Lstat(filepath.Join(ws, "out")); err != nil || !fi.IsDir() {
			t.Fatalf("after %q out is %v, %v", line, fi, err)
		}
	}
	// The folder is still the command's to write in.
	if got := readString(t, filepath.Join(ws, "out", "pages", "other.txt")); got != "x\n" {
		t.Errorf("out/pages/other.txt = %q", got)
	}
}

// Issue 25 (the trust review): bubblewrap was found with exec.LookPath
// on the user's PATH, which may hold a folder of the workspace (a
// project's bin/, node_modules/.bin): a run's command could put a
// `bwrap` there, and the next nightshift in that workspace started it,
// with the user's rights, outside any sandbox. No PATH entry inside the
// workspace is looked in.
func TestBwrapIsNeverTakenFromTheWorkspace(t *testing.T) {
	needBwrap(t)
	ws := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	writeFile(t, filepath.Join(ws, "bin", "bwrap"), "#!/bin/sh\ntouch "+marker+"\nexit 1\n", 0o755)
	t.Setenv("PATH", filepath.Join(ws, "bin")+string(filepath.ListSeparator)+os.Getenv("PATH"))
	// As in a new process: nothing found yet.
	probeMu.Lock()
	saved := probeResult
	probeResult = map[string]probed{}
	probeMu.Unlock()
	t.Cleanup(func() { probeMu.Lock(); probeResult = saved; probeMu.Unlock() })
	sb := newSandbox(t, Config{Mode: Bwrap, Dir: ws})
	expect(t, sb, "echo hi", "hi\n")
	if _, err := os.Stat(marker); err == nil {
		t.Error("the bwrap in the workspace was started")
	}
	if under(sb.bwrap, ws) {
		t.Errorf("bwrap is %s, inside the workspace", sb.bwrap)
	}
}
