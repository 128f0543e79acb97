package main

import "github.com/nightshift-dev/nightshift/agent"

// exitCodes is the one table from an outcome to the exit status of the
// process (DESIGN.md, "Outcomes and exit codes"). The library returns
// outcomes; only the command turns them into exit statuses, and it hands
// this table to the lifecycle for the exit field of events and records.
var exitCodes = map[agent.Outcome]int{
	agent.Done:          0,
	agent.Failed:        1,
	agent.Usage:         2,
	agent.StepLimit:     3,
	agent.Unverified:    4,
	agent.APIFailure:    5,
	agent.Truncated:     6,
	agent.NeedsRecovery: 7,
	// A batch in which some task did not end done, a night a system-scope
	// failure stopped, and a run parked for a person who is not there.
	agent.NotAllDone: 8,
	agent.Parked:     8,
	// Another run is active in the workspace: nothing was run (it was 1,
	// which says "a bug", issue 23).
	agent.Busy: 12,
	// Paused runs: checkpointed, resumable with `nightshift run --resume`.
	agent.Budget:      9,
	agent.Timeout:     10,
	agent.Interrupted: 130,
	// The endpoint's circuit breaker stayed open past the retry budget:
	// paused too, never api-failure (5): the provider is down, not the
	// task (issue 26).
	agent.Unavailable: 11,
	// The context window is full and compaction could not make room:
	// not a cut at max_tokens (6), which a larger cap could help.
	agent.ContextFull: 13,
}

// exitFor is the exit status of outcome o; an outcome missing from the
// table is an error (1).
func exitFor(o agent.Outcome) int {
	if code, ok := exitCodes[o]; ok {
		return code
	}
	return exitCodes[agent.Failed]
}
