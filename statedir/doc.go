// Package statedir says where nightshift keeps its own state: the journal,
// the audit log, run records, checkpoints, memory notes and the shared
// rate-limit files. None of it lives in a workspace, so nothing a run does
// inside the workspace (a file tool, a command, `git clean -fdx`,
// `rm -rf .nightshift`, a symlink planted by a cloned repository) can
// delete, truncate or redirect it.
//
// The layout under the base directory:
//
//	$NIGHTSHIFT_STATE_DIR (else $XDG_STATE_HOME/nightshift, else ~/.local/state/nightshift)
//	├── ws/<first 16 hex of sha256(realpath of the workspace)>/
//	│   ├── workspace      the workspace's path, for a person listing the folder
//	│   ├── journal/<run>/  pending changes of a run, until commit or rollback
//	│   ├── runs/<run>.json run records
//	│   ├── checkpoints/    resumable runs
//	│   ├── memory/         notes kept across runs
//	│   └── audit.jsonl     every gate decision
//	└── limits/             rate-limit state shared by the processes of one machine
//
// Every state folder is made private (0700) by MkdirPrivate, which refuses
// a symlink in its place; every state file is opened with OpenFile,
// ReadFile or WriteFile, which never follow a symlink (WriteFile replaces
// a file atomically). Prune deletes run records and checkpoints past
// their age (--keep-state); journals are never pruned.
//
// Example:
//
//	base, err := statedir.Base("")          // or the --state-dir flag's value
//	ws, err := statedir.Workspace(base, "./project")
//	// ws is base/ws/3f2a…; journal.Begin(…, ws, …)
package statedir
