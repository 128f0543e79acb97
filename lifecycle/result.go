package lifecycle

import (
	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/journal"
)

// Result is how a run ended: the loop's result, what the end did to the
// workspace, and the run record.
type Result struct {
	agent.Result

	// Kept is true when the run's changes stayed in the workspace: it
	// ended done, the spec's Keep asked for it, or it paused.
	Kept bool
	// Suspended is true when the run paused (budget, timeout,
	// interrupted): its journal is pending and its checkpoint kept, and
	// the workspace refuses other runs until it is resumed (Resume) or
	// undone (Recover).
	Suspended bool
	// Rollback says what the rollback of a run that did not end done put
	// back; nil when the changes were kept or the rollback failed.
	Rollback *journal.Report
	// Patch is the diff of what a rolled-back run attempted; empty when
	// it changed nothing or was kept.
	Patch string
	// PatchErr says why the patch of a rolled-back run could not be made.
	PatchErr error
	// JournalErr is a commit or rollback that failed. The journal then
	// stays pending and the workspace needs `nightshift recover`
	// (Recover) before the next run there.
	JournalErr error

	// Dir is the workspace's absolute path, and StateDir the state
	// folder the run kept its journal, audit log and record in.
	Dir      string
	StateDir string
	// PruneErr says why old records and checkpoints could not all be
	// pruned at the start (Config.KeepState); the run went on.
	PruneErr error
	// MemoryErr says why the run's failure could not be added to its
	// memory (Config.Memory); the run's outcome stands.
	MemoryErr error
	// Record is the run record, written to RecordPath; RecordErr says why
	// it could not be written.
	Record     *agent.Record
	RecordPath string
	RecordErr  error
}

// rolledBack lists the paths the rollback put back.
func (r *Result) rolledBack() []string {
	if r.Rollback == nil {
		return nil
	}
	rep := r.Rollback
	return append(append(append([]string(nil), rep.Restored...), rep.Removed...), rep.Recreated...)
}

// conflicts lists the paths the rollback left as something else made
// them, with why.
func (r *Result) conflicts() []string {
	if r.Rollback == nil {
		return nil
	}
	var out []string
	for _, c := range r.Rollback.Conflicts {
		out = append(out, c.String())
	}
	return out
}
