package agent

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/statedir"
)

// Record is what a run keeps in the workspace's state folder (outside the
// workspace: see package statedir), at runs/<run-id>.json (lifecycle.Run
// writes it): the outcome, the usage and the events, and, for a run
// rolled back, the patch it attempted.
type Record struct {
	Run   string `json:"run"`
	Task  string `json:"task"`
	Model string `json:"model,omitempty"`
	// Fallback is the run's fallback model, when it had one; the turn
	// events name the model of every step.
	Fallback string    `json:"fallback_model,omitempty"`
	Started  time.Time `json:"started"`
	Ended    time.Time `json:"ended"`
	Outcome  Outcome   `json:"outcome"`
	// Exit is the exit status of the process that ran the run, when it
	// has one (the lifecycle fills it with Config.Exit); nil leaves it out.
	Exit   *int      `json:"exit,omitempty"`
	Reason string    `json:"reason"`
	Error  string    `json:"error,omitempty"`
	Answer string    `json:"answer,omitempty"`
	Steps  int       `json:"steps"`
	Usage  llm.Usage `json:"usage"`
	// Cost is the run's cost in US dollars by the model table; left out
	// when unknown, never written as zero.
	Cost         models.Cost    `json:"cost_usd,omitzero"`
	FailedChecks []string       `json:"failed_checks,omitempty"`
	FailsByCheck map[string]int `json:"fails_by_check,omitempty"`
	// Patch is the diff of what a rolled-back run attempted.
	Patch string `json:"patch,omitempty"`
	// RolledBack lists what the rollback restored; Conflicts what it left
	// because something else changed it during the run.
	RolledBack []string `json:"rolled_back,omitempty"`
	Conflicts  []string `json:"conflicts,omitempty"`
	// Checkpoint is the checkpoint log of a paused run (budget, timeout,
	// interrupted), which `nightshift run --resume RUN` goes on from.
	Checkpoint string        `json:"checkpoint,omitempty"`
	Events     []event.Event `json:"events"`
}

// NewRecord fills a record from a result.
func NewRecord(task, model string, started, ended time.Time, res *Result, events []event.Event) *Record {
	rec := &Record{
		Run: res.RunID, Task: task, Model: model, Started: started, Ended: ended,
		Outcome: res.Outcome, Reason: res.Reason,
		Answer: res.Answer, Steps: res.Steps, Usage: res.Usage, Cost: res.Cost,
		FailedChecks: res.FailedChecks, FailsByCheck: res.FailsByCheck, Events: events,
	}
	if res.Err != nil {
		rec.Error = res.Err.Error()
	}
	return rec
}

// Write stores the record under stateDir/runs and returns its path. It is
// written to a temporary file and renamed, so a reader never sees half;
// it is private (0600: a patch holds file contents), and neither the
// folder nor the file is ever reached through a symlink.
func (r *Record) Write(stateDir string) (string, error) {
	dir := filepath.Join(stateDir, statedir.RunsName)
	if err := statedir.MkdirPrivate(dir); err != nil {
		return "", fmt.Errorf("run record: %w", err)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", fmt.Errorf("run record: %w", err)
	}
	path := filepath.Join(dir, r.Run+".json")
	if err := statedir.WriteFile(path, append(data, '\n')); err != nil {
		return "", fmt.Errorf("run record: %w", err)
	}
	return path, nil
}
