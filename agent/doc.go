// Package agent is the loop: a model call, tool calls, again, until the
// model says it is done and the verifier agrees — and it ends in exactly one
// Outcome whatever the API, the tools or the model throw at it.
//
// Each layer of failure meets the cheapest means that works (seed 000,
// sections 3.1–3.3): API failures go through the one retry layer; tool
// failures go back to the model as is_error results; a step brake bounds the
// calls; truncated output is continued or regenerated; an answer that breaks
// the output schema goes back with the validator's message; and the model's
// "done" is only a claim until the verifier, which the worker does not
// control, passes it.
//
// And the loop stops in time: every call of the run, the judge's too, goes
// through a budget meter that refuses the call that would cross the
// budget (outcome budget); a time limit (the spec's Timeout, Config.Spec) ends it on the injected clock
// (outcome timeout); the same tool call getting the same result again and
// again is warned once, then ends the run (step-limit, ErrLoop). Those
// outcomes pause a run rather than fail it: after every step the loop
// hands its State to a Checkpointer, and Config.Resume goes on from one.
//
// And a long run stays within its model's reach: before a call whose
// prompt would pass Config.CompactAt of the context window (the spec's
// ContextWindow), the older turns
// are replaced by a summary the model writes (compact.go); a tool result
// bigger than ResultCap is kept in Results and cut in the history, with
// read_result to read it back (results.go); and a Fallback model takes the
// calls the primary cannot answer (package fallback). Every request asks
// for prompt caching unless the spec says NoCache.
//
//	res := agent.Run(ctx, agent.Config{Model: m, Tools: tools, Root: root}, "write docs/install.md")
//	fmt.Println(res.Outcome, res.Answer)
//
// The loop is one step of a run. Package lifecycle wires the whole run
// around it (the workspace, the journal and its rollback, the gate, the
// limiter, the run record) and is what `nightshift run`, `nightshift
// batch` and the night's builder call; a program that embeds nightshift
// should call it too.
package agent
