package gate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/statedir"
	"github.com/nightshift-dev/nightshift/tool"
)

// Entry is one line of the audit log.
type Entry struct {
	Time  time.Time  `json:"ts"`
	Run   string     `json:"run"`
	Tool  string     `json:"tool"`
	Class tool.Class `json:"class"`
	// Input is the call's one-line summary, not its full input: the
	// content of a write stays out of the log.
	Input string `json:"input"`
	// Decision is allow, deny, park, refuse (allowed, but the run could
	// not prepare for it) or reject (no such tool, or input that does not
	// match its schema).
	Decision string `json:"decision"`
	By       By     `json:"by"`
	Reason   string `json:"reason,omitempty"`
}

// Auditor records gate decisions.
type Auditor interface {
	Record(Entry) error
}

// AuditLog appends entries as JSON lines to a file or a writer. It is safe
// for concurrent use.
type AuditLog struct {
	mu sync.Mutex
	w  io.Writer
	c  io.Closer
}

var _ Auditor = (*AuditLog)(nil)

// OpenAudit opens (or creates) the audit log at path for appending, as
// the workspace's state folder's audit.jsonl (outside the workspace: see
// package statedir). Every entry is one write to a file opened with
// O_APPEND, so runs sharing the log do not mix their lines. Neither the
// file nor its folder is ever reached through a symlink.
func OpenAudit(path string) (*AuditLog, error) {
	if err := statedir.MkdirPrivate(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("gate: audit log: %w", err)
	}
	f, err := statedir.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("gate: audit log: %w", err)
	}
	return &AuditLog{w: f, c: f}, nil
}

// NewAudit returns an audit log writing to w.
func NewAudit(w io.Writer) *AuditLog { return &AuditLog{w: w} }

// Record appends e as one line.
func (l *AuditLog) Record(e Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("gate: audit log: %w", err)
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(b); err != nil {
		return fmt.Errorf("gate: audit log: %w", err)
	}
	return nil
}

// Close closes the file OpenAudit opened.
func (l *AuditLog) Close() error {
	if l.c == nil {
		return nil
	}
	return l.c.Close()
}

// ReadAudit reads an audit log back.
func ReadAudit(r io.Reader) ([]Entry, error) {
	var out []Entry
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return out, fmt.Errorf("gate: audit log line %d: %w", n, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}
