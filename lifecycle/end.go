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

// end commits the journal of a run that ended done (or that Keep keeps)
// and rolls back any other, keeping what it attempted as a patch. What a
// rollback did goes in a rollback event, which comes just before the
// outcome event (seed 000, section 4.4: either the whole run completes,
// or nothing changed).
func (out *Result) end(tx *journal.Tx, res *agent.Result, cfg Config, events event.Sink) {
	emit := func(detail string, data map[string]any) {
		events.Emit(event.Event{TS: cfg.Clock.Now(), Run: res.RunID, Step: res.Steps, Type: "rollback", Detail: detail, Data: data})
	}
	if res.Outcome == agent.Done || cfg.Keep {
		out.Kept = true
		out.JournalErr = tx.Commit()
		if res.Outcome != agent.Done {
			emit(keptDetail, map[string]any{"kept": true})
		}
		return
	}
	// A patch that cannot be made does not stop the rollback: putting the
	// workspace back matters more than the record of what it undid.
	out.Patch, out.PatchErr = tx.Patch()
	rep, err := tx.Rollback()
	if err != nil {
		out.JournalErr = fmt.Errorf("rollback: %w", err)
		emit("FAILED: "+err.Error(), map[string]any{"error": err.Error()})
		return
	}
	out.Rollback = &rep
	emit(fmt.Sprintf("restored=%d removed=%d recreated=%d conflicts=%d",
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
