package night

import (
	"cmp"
	"context"
	"slices"

	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/memory"
)

// taskMemory is a task's memory in the ledger (seed 003: the escalated
// model should not start blind): the notes its attempts kept, and the
// failures charged while working on it, with their reasons. It lives
// with the task, so an attempt on another machine, the next night or on
// the next model, starts with all of it.
type taskMemory struct {
	l    *ledger.Ledger
	step ledger.Step
}

var _ memory.Store = taskMemory{}

// Add keeps a note the attempt wrote. A failure note is not kept: the
// night records the attempt's failure itself, charged with its scope and
// reason, and Notes reads it from there.
func (m taskMemory) Add(ctx context.Context, n memory.Note) error {
	if n.Kind == memory.Failure {
		return nil
	}
	_, err := m.l.AddTaskNote(ctx, ledger.TaskNote{Task: m.step.Task, Night: m.step.Night, Step: m.step.ID,
		Worker: m.step.Worker, Level: m.step.Level, Text: n.Text, At: n.At})
	return err
}

// Notes returns the task's notes and failures, oldest first.
func (m taskMemory) Notes(ctx context.Context) ([]memory.Note, error) {
	notes, err := m.l.TaskNotes(ctx, m.step.Task)
	if err != nil {
		return nil, err
	}
	fails, err := m.l.TaskFailures(ctx, m.step.Task)
	if err != nil {
		return nil, err
	}
	out := make([]memory.Note, 0, len(notes)+len(fails))
	for _, n := range notes {
		out = append(out, memory.Note{At: n.At, Kind: memory.Remembered, Text: n.Text, Model: n.Worker})
	}
	for _, f := range fails {
		text := f.Reason
		if f.Manual {
			text = "recorded by a person: " + text
		}
		out = append(out, memory.Note{At: f.At, Kind: memory.Failure, Text: text, Model: f.Worker})
	}
	slices.SortStableFunc(out, func(a, b memory.Note) int { return cmp.Compare(a.At.UnixNano(), b.At.UnixNano()) })
	return out, nil
}

// memoryFor is the memory of a builder step's task, or nil when the
// pipeline turns the builder's memory off.
func (s *scheduler) memoryFor(st ledger.Step) memory.Store {
	if !s.p.BuilderMemory() {
		return nil
	}
	return taskMemory{l: s.l, step: st}
}
