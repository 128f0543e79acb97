package command

import (
	"fmt"
	"sync"
)

// tail keeps the last max bytes written to it and counts what it dropped.
// The end of a command's output is where errors and summaries are, so that
// is the part worth keeping.
type tail struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int64
}

func newTail(max int) *tail { return &tail{max: max} }

// Write keeps the last max bytes of everything written; it never fails.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= t.max {
		t.dropped += int64(len(t.buf) + len(p) - t.max)
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.dropped += int64(over)
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// String returns what was kept, preceded by a marker line when the start
// was cut off.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped == 0 {
		return string(t.buf)
	}
	return fmt.Sprintf("[output truncated: the first %d bytes were dropped; the last %d bytes follow]\n%s",
		t.dropped, len(t.buf), t.buf)
}
