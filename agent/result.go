package agent

import (
	"context"
	"encoding/json"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
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
	Parked *Action
}

// Action is one tool call as the gate sees it.
type Action struct {
	RunID string          `json:"run"`
	Tool  string          `json:"tool"`
	Class tool.Class      `json:"class"`
	Input json.RawMessage `json:"input"`
}

// Decision is a gate's answer for one action.
type Decision struct {
	// Allow lets the call run.
	Allow bool
	// Park stops the run so that a person can answer later (the night):
	// the run ends with outcome parked and Result.Parked set.
	Park bool
	// By is who decided: "policy", "person", "approval".
	By string
	// Message explains a refusal to the model.
	Message string
}

// Gate decides whether a tool call may run. Implementations audit their
// decisions.
type Gate interface {
	Decide(ctx context.Context, a Action) Decision
}
