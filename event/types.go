package event

// The types of a run's events. Each is documented, with its fields and its
// human line, in docs/events.md, and each is built by one constructor in
// this package (NewStart, NewRetry, ...), the one place that knows its
// field names and its line: an emitter fills in what happened and never
// spells a field. A test holds the list, the constructors and the document
// together.
const (
	// Start: the run began, or a paused run went on.
	Start = "start"
	// Retry: a call failed for a reason of timing and will be made again.
	Retry = "retry"
	// Turn: a model reply arrived.
	Turn = "turn"
	// Tool: one tool call, run or not.
	Tool = "tool"
	// Truncated: a reply was cut off by max_tokens.
	Truncated = "truncated"
	// Schema: the final answer failed the output schema.
	Schema = "schema"
	// Verify: the verifier judged an end of turn.
	Verify = "verify"
	// Rollback: the workspace was put back after a run that did not end
	// done, or kept.
	Rollback = "rollback"
	// Journal: the workspace could not be captured after a command.
	Journal = "journal"
	// Loop: the same call with the same result came too many times in a
	// row.
	Loop = "loop"
	// Budget: the next call would have crossed the run's budget.
	Budget = "budget"
	// Checkpoint: the run's progress was saved, or it paused.
	Checkpoint = "checkpoint"
	// Fallback: a call went to the fallback model.
	Fallback = "fallback"
	// Breaker: an endpoint's circuit breaker opened, let one probe
	// through, or closed.
	Breaker = "breaker"
	// Compact: the history was compacted.
	Compact = "compact"
	// Cut: a tool result over the cap was kept aside and cut.
	Cut = "cut"
	// Delegate: an event of a sub-agent, wrapped.
	Delegate = "delegate"
	// Outcome: the run ended (or paused); always the last event.
	Outcome = "outcome"
)

// Types returns the run's event types in the order docs/events.md
// documents them.
func Types() []string {
	return []string{Start, Retry, Turn, Tool, Truncated, Schema, Verify, Rollback, Journal, Loop, Budget, Checkpoint, Fallback, Breaker, Compact, Cut, Delegate, Outcome}
}
