package journal

import (
	"path/filepath"
	"slices"
	"time"
)

// Record operations.
const (
	opBegin       = "begin"        // the run started; Run, Root, Time, PID, Start
	opBefore      = "before"       // Path's prior state, saved before any change
	opAfter       = "after"        // Path's state as the run left it
	opChanging    = "changing"     // Path is about to change again: its after record is stale
	opSnapshot    = "snapshot"     // every path is captured; a command runs
	opSnapshotEnd = "snapshot-end" // the command returned; its paths have after records
	opOwn         = "own"          // Path is a file nightshift itself writes: never captured nor rolled back
)

// record is one line of a journal.
type record struct {
	Op    string    `json:"op"`
	Path  string    `json:"path,omitempty"`
	State *state    `json:"state,omitempty"`
	Run   string    `json:"run,omitempty"`
	Root  string    `json:"root,omitempty"`
	Time  time.Time `json:"time,omitzero"`
	// PID and Start name the process of the run: its ID and its start
	// time (clock ticks after boot, from /proc), which tells a live run
	// from another process that got the same ID later.
	PID   int    `json:"pid,omitempty"`
	Start uint64 `json:"start,omitempty"`
	// Step, on an after record, is how many steps were durable when it
	// was written: it is applied after them, so that a later snapshot
	// supersedes it.
	Step int `json:"step,omitempty"`
	// PathBytes and RootBytes hold a Path or a Root that is not valid
	// UTF-8 (encoding.go).
	PathBytes []byte `json:"path_bytes,omitempty"`
	RootBytes []byte `json:"root_bytes,omitempty"`
	// Format, on a begin record, is the journal's format: 2 since file
	// contents may be hashed in the zero-run form (hash.go); absent in
	// journals of earlier versions, whose hashes are all plain SHA-256.
	Format int `json:"format,omitempty"`
	// Own, on a begin record, lists the files nightshift itself writes in
	// the workspace during the run (package ownfiles), so that a recover
	// after the run died leaves them alone too.
	Own []string `json:"own,omitempty"`
}

// format is the journal format this version writes.
const format = 2

// model is what a journal says: the run's captured paths with their prior
// states and the states the run left them in.
type model struct {
	run   string
	root  string
	begun time.Time
	pid   int
	start uint64
	// format is the begin record's; below 2, every hash in the journal
	// is the plain SHA-256 of a file's bytes.
	format int
	prior  map[string]state
	after  map[string]state
	// blobs says where each saved content is, by hash, so that the same
	// content is saved once.
	blobs map[string]state
	// snapshotOpen is true between a snapshot and its end: a command was
	// running, and any path not captured was made by it.
	snapshotOpen bool
	// own are the files nightshift itself wrote in the workspace during
	// the run: a rollback leaves them alone.
	own map[string]bool
}

func newModel() *model {
	return &model{prior: map[string]state{}, after: map[string]state{}, blobs: map[string]state{}, own: map[string]bool{}}
}

func (m *model) apply(r record) {
	r.unpackNames()
	switch r.Op {
	case opBegin:
		m.run, m.root, m.begun, m.pid, m.start, m.format = r.Run, r.Root, r.Time, r.PID, r.Start, r.Format
		for _, p := range r.Own {
			m.own[filepath.FromSlash(p)] = true
		}
	case opOwn:
		m.own[r.Path] = true
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
	case opChanging:
		delete(m.after, r.Path)
	case opSnapshot:
		// A command may change any path: what the run had left before
		// it says nothing any more about who changed a path since. The
		// snapshot's end records every path afresh.
		m.snapshotOpen = true
		clear(m.after)
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
