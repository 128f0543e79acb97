// Package reliability measures how a pipeline's tasks fare on a real
// model, with and without faults (`nightshift eval reliability`): it runs
// each task of a task list K times under each condition (clean, and through
// the fault proxy, internal/proxy, on a schedule), through the same run path a
// batch uses (batch.Run, each task in its own workspace through the run
// lifecycle), and reports side by side, per task and overall, the runs
// done, unverified and failed, pass^k (every one of the K runs done),
// the retries, the tokens and the cost, and the mix of outcomes.
//
// pass^k is the figure a person needs before leaving a pipeline running
// overnight: a task that is done two runs in three passes 67% of the time,
// but all three times only 30% of the time.
//
//	rep, err := reliability.Run(ctx, reliability.Config{
//		Runs: 5,
//		Conditions: []reliability.Condition{
//			{Name: "clean", Run: clean.Run, Retries: cleanRetries.Count},
//			{Name: "faults", Faults: sched.String(), Run: faulted.Run, Retries: faultedRetries.Count},
//		},
//	}, specs)
//	if err != nil { ... }
//	rep.WriteText(os.Stdout)
package reliability
