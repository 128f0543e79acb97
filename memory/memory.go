package memory

import (
	"context"
	"time"
)

// Kind says what a note is.
type Kind string

// The kinds of note.
const (
	// Remembered is a note a worker wrote with remember.
	Remembered Kind = "note"
	// Failure is why an attempt did not end done, written by the run
	// (or, in the night, the failure the ledger charged).
	Failure Kind = "failure"
)

// Note is one thing an attempt left for the next.
type Note struct {
	At   time.Time `json:"at"`
	Kind Kind      `json:"kind"`
	Text string    `json:"text"`
	// Run is the run that wrote it, Model the model that ran it.
	Run   string `json:"run,omitempty"`
	Model string `json:"model,omitempty"`
}

// Store keeps notes. Implementations are safe for concurrent use.
type Store interface {
	// Add keeps n.
	Add(ctx context.Context, n Note) error
	// Notes returns every note, oldest first.
	Notes(ctx context.Context) ([]Note, error)
}

// MaxNote bounds a note's length: notes are read by every later attempt,
// in its prompt, so a note is a line or a paragraph, not a file.
const MaxNote = 2000
