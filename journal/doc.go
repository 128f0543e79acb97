// Package journal makes a run's changes to its workspace undoable, even
// when the process dies midway (seed 000, section 4.4: "either the whole
// run completes, or nothing changed").
//
// Before a run changes a path, the journal saves the path's prior state
// (content and mode, the target of a symlink, a directory's mode, or the
// fact that it did not exist) under the workspace's state folder, in
// .nightshift/journal/<run>/, and syncs it to disk, folder included, before
// the change may happen. A kill -9 right after a write returns therefore
// always finds the write's prior state on disk.
//
// A run that ends done calls Commit and keeps its changes. Any other end
// calls Patch (what the run attempted, for a person to read) and Rollback,
// which restores the workspace exactly: changed files back, created ones
// removed, deleted ones recreated. A path that something else changed
// during the run (it is neither as it was nor as the run left it) is
// reported as a conflict and left as it is. A run that died leaves its
// journal behind: Pending finds it, and Recover restores it.
//
//	j, err := journal.Begin(root, filepath.Join(root, ".nightshift"), runID)
//	ws.SetGuard(j.Before) // the workspace calls it before each change
//	ws.SetAfter(j.After)  // and this after each successful one
//	...
//	if outcome == agent.Done {
//		err = j.Commit()
//	} else {
//		patch, _ := j.Patch()
//		report, err := j.Rollback()
//	}
//
// Before a danger-class tool (a command) that may touch any file, call
// Snapshot, and AfterSnapshot when it returns.
//
// A Tx does the wiring and the bookkeeping in the shape of database/sql's
// Tx: Attach hooks the journal into the workspace, `defer tx.Rollback()`
// undoes the run on every path that did not reach Commit, and Suspend
// leaves the journal pending for a run that paused. Package lifecycle
// runs every run that way.
package journal
