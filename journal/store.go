package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/nightshift-dev/nightshift/internal/crashpoint"
	"github.com/nightshift-dev/nightshift/statedir"
)

// A run's journal is a folder, stateDir/journal/<run>/:
//
//	begin.json            the run: its ID, workspace, start, process
//	steps/00000001.jsonl  one file per durable step: the prior states it saved
//	steps/00000001.pack   the contents that step saved, if any
//	after.jsonl           the states the run left paths in (advisory)
//	rollback.json         written when a rollback begins: what it decided
//
// Every step file appears whole or not at all (written beside, synced,
// renamed), so a crash can never leave half a record: a step file cut
// short, or missing between two others, is damage, never a crash. The
// folder itself appears only once begin.json is in it (it is built as
// .<run>.new and renamed), and goes away as a whole (renamed to
// .<run>.gone, then removed). The lock on the folder is held by the run's
// process while it lives.
const (
	beginName    = "begin.json"
	stepsName    = "steps"
	afterName    = "after.jsonl"
	decisionName = "rollback.json"

	// The format of earlier versions, kept in the workspace's
	// .nightshift/journal/<run>/: one log and a folder of packs.
	logName   = "log.jsonl"
	blobsName = "blobs"

	newSuffix  = ".new"
	goneSuffix = ".gone"
)

// journalsDir is where the runs' journals live inside the state folder.
func journalsDir(stateDir string) string { return filepath.Join(stateDir, statedir.JournalName) }

func stepFile(n int) string { return fmt.Sprintf("%08d.jsonl", n) }
func packFile(n int) string { return fmt.Sprintf("%08d.pack", n) }

// stepNumber parses a step file's or a pack's name; ok is false for
// anything else.
func stepNumber(name string) (n int, pack, ok bool) {
	base, ext, _ := strings.Cut(name, ".")
	if len(base) != 8 || (ext != "jsonl" && ext != "pack") {
		return 0, false, false
	}
	n, err := strconv.Atoi(base)
	if err != nil || n < 1 {
		return 0, false, false
	}
	return n, ext == "pack", true
}

// encode renders records as JSON lines.
func encode(recs []record) ([]byte, error) {
	var buf bytes.Buffer
	for _, r := range recs {
		r.packNames()
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// writeStep makes step n durable: its records in a file written beside,
// synced, and renamed into place, then the folder synced
// (statedir.WriteFileMarked). The pack the records point to is synced
// already.
func writeStep(steps string, n int, recs []record) error {
	data, err := encode(recs)
	if err != nil {
		return err
	}
	return statedir.WriteFileMarked(filepath.Join(steps, stepFile(n)), data,
		"journal: step written, not renamed", "journal: step renamed, folder not synced")
}

// errLocked means another open journal holds the lock: its run is alive.
var errLocked = errors.New("journal: locked by a live run")

// lockDir opens the folder dir and takes its lock without waiting. The
// kernel drops the lock when the process dies, which is how a live run is
// told from a dead one. The lock follows the folder through renames.
func lockDir(dir string) (*os.File, error) {
	f, err := statedir.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// lock takes the lock on f without waiting.
func lock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

// dropDir removes a journal folder durably: first renamed out of the
// way (atomic: a crash leaves the whole journal or none of it), then
// removed.
func dropDir(dir string) error {
	parent, name := filepath.Split(dir)
	gone := filepath.Join(parent, "."+name+goneSuffix)
	if err := os.Rename(dir, gone); err != nil {
		return err
	}
	if err := statedir.SyncDir(parent); err != nil {
		return err
	}
	crashpoint.Hit("journal: dropped, not removed")
	return os.RemoveAll(gone)
}

// syncDir makes the entries of a directory durable.
func syncDir(path string) error { return statedir.SyncDir(path) }
