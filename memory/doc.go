// Package memory keeps notes across attempts at a task, so that an attempt
// does not start blind to what earlier ones learnt and why they failed
// (seed 003: an escalated model should not start blind).
//
// A Store holds the notes: Dir keeps a workspace's in nightshift's state
// directory (statedir.MemoryName in the workspace's state folder, never in
// the workspace); the night keeps a task's in its ledger, where another
// machine's attempt sees them. Tools gives a run two tools over a store:
// remember {note} adds a note, recall {query} finds the notes that match.
// Brief is what an attempt is told at its start: the latest notes and
// failure reasons of the attempts before it.
//
//	store := memory.Dir(filepath.Join(stateDir, statedir.MemoryName))
//	notes, _ := store.Notes(ctx)
//	system := agent.DefaultSystem + memory.Brief(notes, memory.BriefLimit)
//	tools := append(fs.Tools(root), memory.Tools(store, memory.Who{Run: runID})...)
package memory
