// Package lifecycle is the one place a run is wired: workspace → journal
// (with snapshots before danger-class tools) → tools → gate → retry policy
// and the credential's limiter on every model call → verifier → the loop
// → commit or rollback → run record → outcome.
//
// A run's promises (retries and pacing on every call, the gate, rollback
// of anything that did not end done, the verifier, one recorded outcome)
// hold only if every step is taken, in order, every time. A copy of the
// sequence that keeps fewer of the steps is how they get broken, so
// `nightshift run`, `nightshift batch` (batch.AgentRunner) and the
// night's builder (night.AgentBuilder) all call Run, and the night's
// proposer and judge make their calls through Calls, the same retry,
// pacing and events as every call inside a run.
//
// A run's options live in one place, its run spec (Config.Spec, package
// runspec: the limits, gate rules, sandbox, verify rounds, long-run and
// end-of-run settings), which the flags, task files, batch lines,
// pipeline roles and checkpoints all decode into; Config beside it holds
// what a spec cannot: the model, the verifier, the prices, the clock, the
// sinks. Every zero field of either means its default, and the defaults
// are the safe ones: a run that does not end done is rolled back, commands wait
// behind the gate, and every model call is retried for wrong timing and
// never for wrong content:
//
//	res, err := lifecycle.Run(ctx, lifecycle.Config{
//		Dir:      "./project",
//		Model:    model,
//		Verifier: &verify.Verifier{Rules: []verify.Rule{verify.Exists("docs/install.md")}},
//	}, "Write docs/install.md from the README.")
//	if err != nil {
//		return err // nothing ran: the workspace is as it was
//	}
//	fmt.Println(res.Outcome, res.Answer)
//
// A run stops in time (the spec's budget, time limit and loop limit) and
// saves its progress after every step in a checkpoint log in its state
// folder. A run that pauses (budget, timeout, interrupted) or whose
// process dies keeps its changes and its journal pending; Resume goes on
// with it from its checkpoint, and Recover undoes it:
//
//	res, _ := lifecycle.Run(ctx, cfg, task) // res.Outcome == agent.Budget, res.Suspended
//	cfg.Spec.BudgetUSD *= 2
//	res, err := lifecycle.Resume(ctx, cfg, res.RunID)
//
// Long runs: prompt caching is on unless the spec's NoCache; with a
// context window (the spec's, or Config.ModelWindow) the history is
// compacted before it outgrows it; tool
// results over ResultCap are kept in the run's checkpoint folder for
// read_result; and Config.Fallback (Calls.Fallback for the night's roles)
// takes every call the model cannot answer, the judge's and the
// compaction's included.
//
// The state folder (Config.StateDir) holds the run's journal, the gate's
// audit log and the run record, outside the workspace: by default the
// workspace's own folder of the state directory (Config.StateBase,
// package statedir), so that nothing the run does in the workspace can
// reach them. Where nightshift keeps its state is decided in these two
// fields.
package lifecycle
