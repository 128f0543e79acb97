package lifecycle

import (
	"fmt"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/journal"
)

// keptDetail is the rollback event of a run that did not end done but
// keeps its changes (Config.Keep is the command's --keep).
const keptDetail = "kept: --keep leaves the changes in place"

// end commits the journal of a run that ended done (or that Keep keeps),
// suspends the journal of a paused run (budget, timeout, interrupted:
// its changes stay, undoable, for Resume or Recover) and rolls back any
// other, keeping what it attempted as a patch. What the end did goes in
// a rollback or checkpoint event, which comes just before the outcome
// event (seed 000, section 4.4: either the whole run completes, or
// nothing changed, or it waits, undoable, to be finished).
func (out *Result) end(tx *journal.Tx, ck *checkpointer, res *agent.Result, cfg Config, events event.Sink) {
	emit := func(typ, detail string, data map[string]any) {
		events.Emit(event.Event{TS: cfg.Clock.Now(), Run: res.RunID, Step: res.Steps, Type: typ, Detail: detail, Data: data})
	}
	// A tool call's journal still open (the run stopped while the call
	// ran) is undone first: its result is not in the checkpoint.
	ck.abortCall()
	switch {
	case res.Outcome == agent.Done || cfg.Keep:
		out.Kept = true
		out.JournalErr = tx.Commit()
		if res.Outcome != agent.Done {
			emit("rollback", keptDetail, map[string]any{"kept": true})
		}
		ck.drop()
		return
	case res.Outcome.Paused() && !(res.Outcome == agent.Interrupted && cfg.RollbackOnInterrupt):
		if err := tx.Suspend(); err != nil {
			out.JournalErr = fmt.Errorf("suspend: %w", err)
			return
		}
		out.Kept, out.Suspended = true, true
		emit("checkpoint", fmt.Sprintf("paused at step %d: resume, or recover to undo", res.Steps),
			map[string]any{"action": "pause", "steps": res.Steps, "path": ck.logPath(), "total_bytes": ck.log.bytes})
		return
	}
	// The run ended for good: nothing to resume, even if the rollback
	// fails and leaves its journal for Recover.
	ck.drop()
	// A patch that cannot be made does not stop the rollback: putting the
	// workspace back matters more than the record of what it undid.
	out.Patch, out.PatchErr = tx.Patch()
	rep, err := tx.Rollback()
	if err != nil {
		out.JournalErr = fmt.Errorf("rollback: %w", err)
		emit("rollback", "FAILED: "+err.Error(), map[string]any{"error": err.Error()})
		return
	}
	out.Rollback = &rep
	emit("rollback", fmt.Sprintf("restored=%d removed=%d recreated=%d conflicts=%d",
		len(rep.Restored), len(rep.Removed), len(rep.Recreated), len(rep.Conflicts)),
		map[string]any{
			"restored": nonNil(rep.Restored), "removed": nonNil(rep.Removed), "recreated": nonNil(rep.Recreated),
			"conflicts": nonNil(out.conflicts()),
		})
}

// nonNil makes an empty list a JSON [] rather than null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
