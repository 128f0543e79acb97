package agent

// Outcome is how a run ended. Every run ends in exactly one.
type Outcome string

// The outcomes, with the exit codes of `nightshift run` (docs: DESIGN.md).
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

// ExitCode is the process exit status for the outcome.
func (o Outcome) ExitCode() int {
	switch o {
	case Done:
		return 0
	case Usage:
		return 2
	case StepLimit:
		return 3
	case Unverified:
		return 4
	case APIFailure:
		return 5
	case Truncated:
		return 6
	case NeedsRecovery:
		return 7
	case NotAllDone, Parked:
		return 8
	case Interrupted:
		return 130
	default:
		return 1
	}
}
