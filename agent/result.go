package agent

import (
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
)

// Result is how a run ended.
type Result struct {
	RunID   string
	Outcome Outcome
	// Answer is the final answer when there is one (done, unverified).
	Answer string
	// Steps is the number of worker model calls made.
	Steps int
	// Usage sums the tokens of every call, the judge's included.
	Usage llm.Usage
	// Cost prices Usage by the model table; Unknown when a call could not
	// be priced.
	Cost models.Cost
	// Calls is how many worker model calls this Run made: Steps less the
	// steps a resumed run had made before.
	Calls int
	// Reason says in words why the run ended as it did.
	Reason string
	// Err is the error behind api-failure, interrupted and error outcomes;
	// llm.ClassOf(Err) tells quota from auth from exhausted retries.
	Err error
	// FailedChecks names the checks of the last FAIL, for unverified.
	FailedChecks []string
	// FailsByCheck counts every FAIL by the check that decided it.
	FailsByCheck map[string]int
	// Parked is the action a gate wanted a person to answer, when the run
	// stopped for it (outcome parked).
	Parked *gate.Action
	// State is the run's progress when it ended: what a resume would go
	// on from.
	State *State
}
