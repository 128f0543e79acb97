// Package journal makes a run's changes to its workspace undoable, even
// when the process dies midway (seed 000, section 4.4: "either the whole
// run completes, or nothing changed").
//
// Before a run changes a path, the journal saves the path's prior state
// (content and mode, the target of a symlink, a directory's mode, or the
// fact that it did not exist) in the workspace's state folder, outside the
// workspace (package statedir: nothing the run does inside the workspace,
// `git clean -fdx` or `rm -rf .nightshift` included, can reach it), and
// syncs it to disk before the change may happen. A kill -9 right after a
// write returns therefore always finds the write's prior state on disk.
//
// A run that ends done calls Commit, which keeps its changes and deletes
// the saved contents. Any other end calls Patch (what the run attempted,
// for a person to read) and Rollback, which restores the workspace
// exactly: changed files back, created ones removed, deleted ones
// recreated, folders with their modes, a symlink that replaced a folder
// removed and the folder put back. A path that something else changed
// during the run (it is neither as it was nor as the run left it) is
// reported as a conflict and left as it is. A run that died leaves its
// journal behind: Begin refuses to start another run beside it, and
// Recover restores it.
//
//	j, err := journal.Begin(root, stateDir, runID) // stateDir from statedir.Workspace
//	ws.SetGuard(j.Before)   // the workspace calls it before each change
//	ws.SetAfter(j.After)    // and this after each successful one
//	j.OnChange(ws.AddChanged) // what commands changed, for the judge
//	...
//	if outcome == agent.Done {
//		err = j.Commit()
//	} else {
//		patch, _ := j.Patch()
//		report, err := j.Rollback()
//	}
//
// Before a danger-class tool (a command) that may touch any file, call
// Snapshot, and AfterSnapshot when it returns. Between the two, the
// snapshot is the truth: a kill while the command runs is recovered by
// putting every path back as it was before the run, and a path that
// appeared is removed. AfterSnapshot reports what the command changed, the
// difference between the workspace and the snapshot, to OnChange. Give
// every command Mark(workspace) in its environment: Recover refuses
// (ErrBusy, naming the PID) while a command a dead run started is still
// alive.
//
// Every step of the journal is a file that appears whole or not at all,
// so a crash never leaves a record cut short: a journal with a record
// missing, empty or cut short is damaged, and Recover applies what it can,
// says what is damaged, what it restored and what it could not, returns
// ErrDamaged and keeps the journal until a person calls Discard. A
// rollback decides once, before changing anything, which paths to leave
// as conflicts, and keeps that decision with the journal: it can be
// stopped at any point (a kill during the rollback, or during Recover) and
// run again, and it ends where an uninterrupted one would. It writes
// nothing in the workspace but the paths it restores.
//
// Only what nightshift wrote is ever applied by itself: a journal in the
// state folder (outside the workspace, where no sandboxed command can
// write) whose begin record names the workspace and the run. Journals in
// the workspace's .nightshift/ folder, where earlier versions kept them
// and where a run or a cloned repository can put one, stop no Begin and
// are not applied by Recover: Legacy lists what they would change, and
// RecoverLegacy applies them when a person asks. No journal ever writes
// under a .git (protect.go).
//
// Every walk and hash of the workspace looks at its context between paths
// and between chunks of a file, skips the holes of sparse files (which are
// saved and restored by their data: hash.go), takes a file's state from
// its stat when the file has not changed since it was last read
// (statcache.go), holds one open folder per level so that depth costs
// what it costs (walk.go), and takes names of any bytes (encoding.go).
// nightshift's own files in the workspace (package ownfiles) are never
// captured, compared or rolled back.
//
// A Tx does the wiring and the bookkeeping in the shape of database/sql's
// Tx: Attach hooks the journal into the workspace (and, when it has
// AddChanged, tells it what commands changed), `defer tx.Rollback()`
// undoes the run on every path that did not reach Commit, and Suspend
// leaves the journal pending for a run that paused. Package lifecycle
// runs every run that way.
package journal
