// Package night runs agents unattended through a nightly window (seed
// 003): a proposer adds ideas to a backlog, a judge scores them, and a
// builder takes the best-scored task that is free tonight and works on it,
// one attempt (a whole agent run, in the task's own workspace) per step.
//
// Every failure is charged, by a rules table the pipeline file can change,
// to the smallest thing known to be broken: the call, the task (it goes on
// tonight's skip list), the worker (that role-and-model sits out the night;
// the role goes on with its next model), the night, or the system. An empty
// answer is a failed step and is recorded as one; a worker's failed steps
// on two different tasks send it out (a call without a task never counts);
// a task that fails twice with one model across nights goes to the role's
// next model. Only tasks some builder can still take tonight count against
// the WIP cap, so one bad task never empties the pipeline. A gate that asks
// for a person parks the task, with a deadline, until `nightshift task
// approve|deny`.
//
// The scheduler keeps none of the night's state: it is the ledger's
// Handler, and decides each step on the state it reads in the ledger's
// transaction that claims the step, and charges failures and spends budgets
// on the state as it is in the transaction that records it. Any number of
// processes, on any machines, may share a night through one PostgreSQL
// ledger and decide as one would. A night ends cut short (every worker of a
// role out, a night-scope failure, a system stop) or out of work (nothing
// takeable), two numbers kept apart, or when its window closes or its
// ceilings are reached. Run again in its window, it continues the attempts
// a signal interrupted and resumes a night a system stop ended.
//
// Time comes from the injected clock. On any clock but clock.Real the waits
// (for the window to open, for a person's answer) are taken at once, so a
// test, the demo or `nightshift night --clock sim` runs a night in
// milliseconds and a month of nights in seconds:
//
//	p, _ := night.LoadPipeline("pipeline.yaml")
//	l, _ := ledger.Open(ctx, "night.db", ledger.Config{})
//	sum, err := night.Run(ctx, night.Config{Pipeline: p, Ledger: l, Models: models, Clock: clock.NewFake(start)})
//	// sum.Night.End: window-closed, ceilings-reached, cut-short, out-of-work or system-stopped
package night
