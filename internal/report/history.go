package report

import (
	"context"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
)

// history is what the report reads of the ledger across every night,
// once: the tasks and when each was settled, the parked actions, the
// drops and the failures recorded by hand.
type history struct {
	tasks map[int64]ledger.Task
	// doneAt is when each done task's finishing attempt ended.
	doneAt map[int64]time.Time
	parked []ledger.ParkedAction
	// parkedOf are the parked actions by task.
	parkedOf map[int64][]ledger.ParkedAction
	// drops are the tasks a person gave up, by task.
	drops map[int64]ledger.Drop
	// manual are the failures recorded by hand (task fail, task deny),
	// of every night and between nights, oldest first.
	manual []ledger.Failure
}

func readHistory(ctx context.Context, l *ledger.Ledger) (*history, error) {
	h := &history{tasks: map[int64]ledger.Task{}, doneAt: map[int64]time.Time{}, drops: map[int64]ledger.Drop{}}
	// A report reads it once; the nights' silent failures look a task up
	// for each night.
	ts, err := l.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		h.tasks[t.ID] = t
	}
	done, err := l.FinishedSteps(ctx, ledger.Builder)
	if err != nil {
		return nil, err
	}
	for _, s := range done {
		if _, ok := h.doneAt[s.Task]; !ok && s.Task != 0 {
			h.doneAt[s.Task] = s.EndedAt
		}
	}
	if h.parked, err = l.ParkedActions(ctx); err != nil {
		return nil, err
	}
	h.parkedOf = map[int64][]ledger.ParkedAction{}
	for _, p := range h.parked {
		h.parkedOf[p.Task] = append(h.parkedOf[p.Task], p)
	}
	drops, err := l.Drops(ctx)
	if err != nil {
		return nil, err
	}
	for _, d := range drops {
		h.drops[d.Task] = d
	}
	if h.manual, err = l.ManualFailures(ctx); err != nil {
		return nil, err
	}
	return h, nil
}

// settledAt is when a task stopped waiting for good: done, failed or
// dropped; zero while it may still be taken.
func (h *history) settledAt(t ledger.Task) time.Time {
	switch t.State {
	case ledger.Done:
		if at, ok := h.doneAt[t.ID]; ok {
			return at
		}
	case ledger.Dropped:
		if d, ok := h.drops[t.ID]; ok {
			return d.At
		}
	case ledger.Failed:
		for _, p := range h.parkedOf[t.ID] {
			if p.Decision == ledger.Denied || p.Decision == ledger.Expired {
				return p.DecidedAt
			}
		}
	default:
		return time.Time{}
	}
	return t.UpdatedAt
}

// waiting returns the tasks that waited in the queue at some time in
// [from, to): added before to, not settled before from, and not parked
// all along.
func (h *history) waiting(from, to time.Time) []ledger.Task {
	var out []ledger.Task
	for _, t := range h.tasks {
		if !t.CreatedAt.Before(to) {
			continue
		}
		if at := h.settledAt(t); !at.IsZero() && !at.After(from) {
			continue
		}
		if h.parkedThrough(t.ID, from, to) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// parkedThrough reports whether the task was parked, waiting for a
// person, from before from until to or later.
func (h *history) parkedThrough(task int64, from, to time.Time) bool {
	for _, p := range h.parkedOf[task] {
		if p.AskedAt.After(from) {
			continue
		}
		if p.Decision == ledger.Undecided || !p.DecidedAt.Before(to) {
			return true
		}
	}
	return false
}
