package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// The journal's files, in .nightshift/journal/<run>/.
const (
	logName   = "log.jsonl" // one record per line, appended and synced
	blobsName = "blobs"     // packs of prior contents, one per synced step
)

// Record operations.
const (
	opBegin       = "begin"        // the run started; Run, Root, Time
	opBefore      = "before"       // Path's prior state, saved before any change
	opAfter       = "after"        // Path's state as the run left it
	opSnapshot    = "snapshot"     // every path is captured; a command runs
	opSnapshotEnd = "snapshot-end" // the command returned; its paths have after records
)

// record is one line of the log.
type record struct {
	Op    string    `json:"op"`
	Path  string    `json:"path,omitempty"`
	State *state    `json:"state,omitempty"`
	Run   string    `json:"run,omitempty"`
	Root  string    `json:"root,omitempty"`
	Time  time.Time `json:"time,omitzero"`
}

// model is what the log says: the run's captured paths with their prior
// states and the states the run left them in.
type model struct {
	run   string
	begun time.Time
	prior map[string]state
	after map[string]state
	// blobs says where each saved content is, by hash, so that the same
	// content is saved once.
	blobs map[string]state
	// snapshotOpen is true between a snapshot and its end: a command was
	// running, and any path not captured was made by it.
	snapshotOpen bool
}

func newModel() *model {
	return &model{prior: map[string]state{}, after: map[string]state{}, blobs: map[string]state{}}
}

func (m *model) apply(r record) {
	switch r.Op {
	case opBegin:
		m.run, m.begun = r.Run, r.Time
	case opBefore:
		if _, ok := m.prior[r.Path]; !ok && r.State != nil {
			m.prior[r.Path] = *r.State
			if r.State.Kind == file && r.State.Pack != "" {
				m.blobs[r.State.Hash] = *r.State
			}
		}
	case opAfter:
		if _, ok := m.prior[r.Path]; ok && r.State != nil {
			m.after[r.Path] = *r.State
		}
	case opSnapshot:
		m.snapshotOpen = true
	case opSnapshotEnd:
		m.snapshotOpen = false
	}
}

// paths returns the captured paths in lexical order, which puts every
// directory before what it holds.
func (m *model) paths() []string {
	out := make([]string, 0, len(m.prior))
	for p := range m.prior {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// readLog reads a journal's log. A last line cut short by a crash is
// ignored: the change it announced had not been allowed to happen yet.
func readLog(path string) (*model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := newModel()
	lines := bytes.Split(data, []byte("\n"))
	for i, l := range lines {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var r record
		if err := json.Unmarshal(l, &r); err != nil {
			if i == len(lines)-1 {
				break // the torn last line: it has no newline yet
			}
			return nil, fmt.Errorf("journal: %s line %d: %w", path, i+1, err)
		}
		m.apply(r)
	}
	return m, nil
}

// appendRecords writes recs to the log in one write and, when durable,
// syncs the log before returning.
func appendRecords(log *os.File, recs []record, durable bool) error {
	var buf bytes.Buffer
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if _, err := log.Write(buf.Bytes()); err != nil {
		return err
	}
	if durable {
		return log.Sync()
	}
	return nil
}

// syncDir makes the entries of a directory (files created, renamed or
// removed in it) durable.
func syncDir(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// errLocked means another open journal holds the lock: its run is alive.
var errLocked = errors.New("journal: locked by a live run")

// lock takes the run's lock on f without waiting. The kernel drops it when
// the process dies, which is how a live run is told from a dead one.
func lock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

// journalsDir is where the runs' journals live inside the state folder.
func journalsDir(stateDir string) string { return filepath.Join(stateDir, "journal") }
