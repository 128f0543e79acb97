package lifecycle

import (
	"context"
	"fmt"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/journal"
)

// end commits the journal of a run that ended done (or that Keep keeps),
// suspends the journal of a paused run (budget, timeout, interrupted:
// its changes stay, undoable, for Resume or Recover) and rolls back any
// other, keeping what it attempted as a patch. What the end did goes in
// a rollback or checkpoint event, which comes just before the outcome
// event (seed 000, section 4.4: either the whole run completes, or
// nothing changed, or it waits, undoable, to be finished).
//
// ctx stops the patch and the rollback (a signal during them: the journal
// stays pending for recover). A run whose end came from ctx itself (an
// interrupt the night rolls back) is undone under a context that ends no
// more; a second signal still exits the process at once.
func (out *Result) end(ctx context.Context, tx *journal.Tx, ck *checkpointer, res *agent.Result, cfg Config, events event.Sink) {
	if ctx.Err() != nil {
		ctx = context.WithoutCancel(ctx)
	}
	emit := func(e event.Event) {
		e.TS, e.Run, e.Step = cfg.Clock.Now(), res.RunID, res.Steps
		events.Emit(e)
	}
	// A tool call's journal still open (the run stopped while the call
	// ran) is undone first: its result is not in the checkpoint.
	ck.abortCall()
	switch {
	case res.Outcome == agent.Done || cfg.spec.Keep:
		out.Kept = true
		out.JournalErr = tx.Commit()
		if res.Outcome != agent.Done {
			emit(event.NewRollback(event.RollbackInfo{Kept: true}))
		}
		ck.drop()
		return
	case res.Outcome.Paused() && !(res.Outcome == agent.Interrupted && cfg.spec.RollbackOnInterrupt) &&
		!(res.Outcome != agent.Interrupted && cfg.RollbackOnLimit):
		if err := tx.Suspend(); err != nil {
			out.JournalErr = fmt.Errorf("suspend: %w", err)
			return
		}
		out.Kept, out.Suspended = true, true
		emit(event.NewCheckpoint(event.CheckpointInfo{Paused: true, Step: res.Steps, Path: ck.logPath(), TotalBytes: ck.log.bytes}))
		return
	}
	// The run ended for good: nothing to resume, even if the rollback
	// fails and leaves its journal for Recover.
	ck.drop()
	// A patch that cannot be made does not stop the rollback: putting the
	// workspace back matters more than the record of what it undid.
	out.Patch, out.PatchErr = tx.PatchContext(ctx)
	rep, err := tx.RollbackContext(ctx)
	if err != nil {
		out.JournalErr = fmt.Errorf("rollback: %w", err)
		emit(event.NewRollback(event.RollbackInfo{Err: err}))
		return
	}
	out.Rollback = &rep
	emit(event.NewRollback(event.RollbackInfo{Restored: rep.Restored, Removed: rep.Removed, Recreated: rep.Recreated, Conflicts: out.conflicts()}))
}
