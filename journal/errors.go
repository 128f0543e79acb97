package journal

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNeedsRecovery means an earlier run in this workspace died midway and
// left its journal: the workspace may hold half of that run's changes. Run
// `nightshift recover` (Recover) first.
var ErrNeedsRecovery = errors.New("journal: an earlier run died midway; run `nightshift recover` first")

// ErrBusy means a run, or a command a run started, is alive in this
// workspace right now.
var ErrBusy = errors.New("journal: another run is active in this workspace")

// ErrClosed means the journal was already committed or rolled back.
var ErrClosed = errors.New("journal: already committed or rolled back")

// ErrDamaged means a journal could not be applied in full: part of it is
// damaged or missing, or some saved content could not be put back. The
// journal is kept; what could be restored was.
var ErrDamaged = errors.New("journal: damaged; not every change could be undone")

// NeedsRecoveryError names the runs whose journals are pending. It
// matches ErrNeedsRecovery with errors.Is.
type NeedsRecoveryError struct {
	StateDir string
	Runs     []string
	// Journals are the runs' journal folders, in the order of Runs.
	Journals []string
}

func (e *NeedsRecoveryError) Error() string {
	where := strings.Join(e.Journals, ", ")
	if where == "" {
		where = journalsDir(e.StateDir)
	}
	return fmt.Sprintf("journal: run %s died midway in this workspace and left a journal in %s; run `nightshift recover` first",
		strings.Join(e.Runs, ", "), where)
}

// Is makes errors.Is(err, ErrNeedsRecovery) true.
func (e *NeedsRecoveryError) Is(target error) bool { return target == ErrNeedsRecovery }

// Process is a live process that keeps a journal from being applied.
type Process struct {
	PID int
	// Run is the run it belongs to; "" for a command found by its mark.
	Run string
	// Command is true for a process a run started (run_command).
	Command bool
}

func (p Process) String() string {
	switch {
	case p.Command:
		return fmt.Sprintf("a command a run started (PID %d)", p.PID)
	case p.PID > 0:
		return fmt.Sprintf("run %s (PID %d)", p.Run, p.PID)
	}
	return fmt.Sprintf("run %s (its process holds the journal's lock)", p.Run)
}

// BusyError names what is alive in the workspace. It matches ErrBusy.
type BusyError struct {
	Live []Process
}

func (e *BusyError) Error() string {
	names := make([]string, len(e.Live))
	for i, p := range e.Live {
		names[i] = p.String()
	}
	return "journal: still alive in this workspace: " + strings.Join(names, ", ")
}

// Is makes errors.Is(err, ErrBusy) true.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// PIDs returns the live processes' IDs.
func (e *BusyError) PIDs() []int {
	var out []int
	for _, p := range e.Live {
		if p.PID > 0 {
			out = append(out, p.PID)
		}
	}
	return out
}

// DamagedError says which journals could not be applied in full and were
// kept. It matches ErrDamaged; the Report returned with it says what was
// damaged, what was restored and what could not be.
type DamagedError struct {
	Runs     []string
	Journals []string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("journal: the journal of run %s is damaged: not every change could be undone; it is kept in %s",
		strings.Join(e.Runs, ", "), strings.Join(e.Journals, ", "))
}

// Is makes errors.Is(err, ErrDamaged) true.
func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }
