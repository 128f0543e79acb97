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
	// Busy: another run is active in the workspace, so this one never
	// began; nothing was changed, and it may simply be run again later.
	Busy Outcome = "busy"
	// Parked: a gate asked for a person and nobody is there (the night);
	// the task waits for `nightshift task approve`.
	Parked Outcome = "parked"
	// Budget: the next call would have crossed the run's spend or token
	// budget, so it was not made. The run is paused, not failed: its
	// checkpoint and its changes are kept for a resume.
	Budget Outcome = "budget"
	// Timeout: the run's wall-clock limit passed. Paused, like Budget.
	Timeout Outcome = "timeout"
	// Unavailable: the endpoint's circuit breaker stayed open past the
	// retry budget (package breaker): the provider is down, not the task.
	// Paused, like Budget.
	Unavailable Outcome = "unavailable"
	// Interrupted: the run was stopped (SIGINT, SIGTERM, a cancelled
	// context). Paused, like Budget.
	Interrupted Outcome = "interrupted"
	Failed      Outcome = "error"
)

// ContextFull: the context window is full and compaction could not make
// room: a reply stopped at the window, or the server refused the prompt,
// and the history has nothing left to drop (the system prompt, the tools
// and the latest step fill it). Not max_tokens: a larger output cap
// cannot help (ErrContextFull names the window).
const ContextFull Outcome = "context-full"

// Outcomes lists every outcome, in the order of the exit statuses the
// command gives them (cmd/nightshift): the tables that list outcomes
// (README, docs/events.md, the exit table) are held to it by tests.
func Outcomes() []Outcome {
	return []Outcome{Done, Failed, Usage, StepLimit, Unverified, APIFailure, Truncated, NeedsRecovery,
		NotAllDone, Parked, Budget, Timeout, Unavailable, Busy, ContextFull, Interrupted}
}

// Paused reports whether o stopped a run that may be resumed where it
// stopped (budget, timeout, unavailable, interrupted) rather than ended
// it: the lifecycle keeps such a run's changes and checkpoint.
func (o Outcome) Paused() bool {
	return o == Budget || o == Timeout || o == Unavailable || o == Interrupted
}
