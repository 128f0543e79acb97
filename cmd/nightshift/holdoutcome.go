package main

import (
	"sync"

	"github.com/nightshift-dev/nightshift/event"
)

// holdOutcome passes events on, except the outcome, which it keeps until
// flush: the rollback happens after the agent has ended the run, and the
// outcome must stay a run's last event (docs/events.md), so that a script
// reading the last line of --events reads the outcome.
type holdOutcome struct {
	next event.Sink
	mu   sync.Mutex
	held []event.Event
}

// Emit passes e on, or keeps it when it is the outcome.
func (h *holdOutcome) Emit(e event.Event) {
	if e.Type == "outcome" {
		h.mu.Lock()
		h.held = append(h.held, e)
		h.mu.Unlock()
		return
	}
	h.next.Emit(e)
}

// flush passes on the outcome kept back.
func (h *holdOutcome) flush() {
	h.mu.Lock()
	held := h.held
	h.held = nil
	h.mu.Unlock()
	for _, e := range held {
		h.next.Emit(e)
	}
}
