package night

import (
	"context"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/memory"
)

// Builder runs one builder step: one attempt at one task, in the task's own
// workspace. Implementations return every failure as data in the Attempt;
// they never panic on a model's or a tool's failure.
type Builder interface {
	Attempt(ctx context.Context, a Assignment) Attempt
}

// BuilderFunc adapts a function to Builder.
type BuilderFunc func(ctx context.Context, a Assignment) Attempt

// Attempt calls f.
func (f BuilderFunc) Attempt(ctx context.Context, a Assignment) Attempt { return f(ctx, a) }

// Assignment is one builder step's work.
type Assignment struct {
	Night int64
	Step  ledger.Step
	Task  ledger.Task
	// Worker is the builder model's name in the pipeline; Level its index
	// in the role's list.
	Worker string
	Level  int
	// Dir is the task's workspace folder. The builder creates it when it
	// needs one, so a step that touches no files costs no folder.
	Dir string
	// System is the builder role's prompt.
	System string
	// MaxSteps is the attempt's step brake.
	MaxSteps int
	// Approved are actions a person approved for this task: the gate
	// allows them when the same call comes again.
	Approved []ledger.ParkedAction
	// Continues is the interrupted attempt this one continues, on the
	// workspace as it left it (its journal pending); nil for a new
	// attempt.
	Continues *ledger.Step
	// Memory is the task's memory: the notes and failure reasons of the
	// attempts before this one, which it starts with, and where its
	// remember tool keeps notes (in the ledger, with the task). Nil when
	// the pipeline turns the builder's memory off.
	Memory memory.Store
}

// Attempt is what one builder attempt did.
type Attempt struct {
	Outcome agent.Outcome
	Answer  string
	Reason  string
	// Checks names the verifier checks of the last FAIL.
	Checks []string
	// Tokens are the attempt's input and output tokens, its judge's
	// included; CacheWriteTokens and CacheReadTokens the input tokens
	// written to and read from the prompt cache, among them; Cost what
	// its calls cost by the model table. The zero Cost is unknown,
	// recorded as such, never as free.
	Tokens           int64
	CacheWriteTokens int64
	CacheReadTokens  int64
	Cost             models.Cost
	// Calls is how many model calls the attempt made. An attempt that
	// fails before its first call never reached the task's work: the
	// rules charge that to the worker (no-task), not the task.
	Calls int
	// Err is the error behind an api-failure or error outcome;
	// llm.ClassOf(Err) tells quota from auth.
	Err error
	// Park is the action a gate asked a person about (outcome parked).
	Park *ParkRequest
	// UsedApprovals are the approved actions the attempt ran.
	UsedApprovals []int64
	// Suspended is set on an interrupted attempt whose changes stay in
	// the workspace, its journal pending, for the next night to continue.
	Suspended bool
}

// ParkRequest is the exact action a gate wanted a person to answer.
type ParkRequest struct {
	Action string
	Reason string
}
