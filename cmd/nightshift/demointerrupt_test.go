package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// cancelOn is a writer that cancels a context when what was written to it
// contains a marker: a Ctrl-C that arrives at a known point of a run,
// without a timer.
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	cancel context.CancelFunc
}

func (w *cancelOn) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.marker) {
		w.cancel()
	}
	return len(p), nil
}

func (w *cancelOn) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// Regression (issue 23): Ctrl-C during `nightshift demo` did not stop it:
// the next scenes started, it printed resume and undo commands for a
// temporary folder it then deleted, and it exited 1, not 130.
func TestCtrlCStopsTheDemo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOn{marker: "[retry ·", cancel: cancel}
	var stdout bytes.Buffer
	err := runDemo(ctx, &stdout, stderr, time.Millisecond)
	out := stderr.String()
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 130 {
		t.Fatalf("runDemo = %v, want exit 130\n%s", err, out)
	}
	if got := exitCode(err, &bytes.Buffer{}); got != 130 {
		t.Errorf("exit status %d, want 130", got)
	}
	for _, never := range []string{"== scene 2", "go on:", "undo:", "--resume", "recover"} {
		if strings.Contains(out, never) {
			t.Errorf("an interrupted demo printed %q:\n%s", never, out)
		}
	}
	if !strings.Contains(out, "nightshift demo: interrupted") {
		t.Errorf("the demo does not say it was interrupted:\n%s", out)
	}
}
