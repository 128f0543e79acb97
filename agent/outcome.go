package agent

// Outcome is how a run ended. Every run ends in exactly one. The library
// returns outcomes; turning one into a process exit status is the
// command's business (cmd/nightshift keeps that table, DESIGN.md lists
// it), handed to a run as Config.Exit.
type Outcome string

// The outcomes.
const (
	Done          Outcome = "done"
	Usage         Outcome = "usage"
	StepLimit     Outcome = "step-limit"
	Unverified    Outcome = "unverified"
	APIFailure    Outcome = "api-failure"
	Truncated     Outcome = "truncated"
	NeedsRecovery Outcome = "needs-recovery"
	NotAllDone    Outcome = "not-all-done"
	// Parked: a gate asked for a person and nobody is there (the night);
	// the task waits for `nightshift task approve`.
	Parked      Outcome = "parked"
	Interrupted Outcome = "interrupted"
	Failed      Outcome = "error"
)
