// Package night runs agents unattended through a nightly window (seed
// 003): a proposer adds ideas to a backlog, a judge scores them, and a
// builder takes the best-scored task that is free tonight and works on it,
// one attempt (a whole agent run, in the task's own workspace) per step.
//
// Every failure is charged, by a rules table the pipeline file can change,
// to the smallest thing known to be broken: the call, the task (it goes on
// tonight's skip list), the worker (that role-and-model sits out the night;
// the role goes on with its next model), the night, or the system. An empty
// answer is a failed step and is recorded as one; a task that fails twice
// with one model across nights goes to the role's next model. Tasks the
// builder cannot take tonight do not count against the WIP cap, so one bad
// task never empties the pipeline. A gate that asks for a person parks the
// task, with a deadline, until `nightshift task approve|deny`.
//
// Time comes from the injected clock, so a test or a demo runs a whole
// night in milliseconds:
//
//	p, _ := night.LoadPipeline("pipeline.yaml")
//	l, _ := ledger.Open(ctx, "night.db", ledger.Config{})
//	sum, err := night.Run(ctx, night.Config{Pipeline: p, Ledger: l, Models: models, Clock: clock.NewFake(start)})
//	// sum.Night.End is window-closed, ceilings-reached, ended-early or system-stopped
package night
