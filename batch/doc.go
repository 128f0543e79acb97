// Package batch runs many agent tasks concurrently in one process, each in
// its own workspace with its own verifier, all under the same rate
// limiters, and sums up how they ended (`nightshift batch`).
//
// Every task gets a fresh folder under Config.WorkDir: a copy of the
// task's dir when it names one (a .nightshift folder of an earlier
// version left out), or an empty folder when it does not. The original is
// never touched, so a batch can be rerun, and the copies stay behind for
// inspection.
//
// At most Config.Parallel tasks run at once. The model calls of all of
// them should go through one retry.Limiter per provider credential (a
// retry.Limiters registry), so that they share the provider's rate limit
// instead of colliding on it: a batch of fifty tasks under a limit of ten
// requests a second is paced, not stampeded (issue 5). A registry with
// retry.LimiterConfig.Dir set shares the limiters with the machine's
// other processes as well (issue 13).
//
// Each task runs through the run lifecycle (batch.Agent, lifecycle.Run),
// as `nightshift run` runs one: the gate decides before any tool runs,
// the journal rolls back a task that does not end done in its copy (the
// copy stays behind, the attempt kept as a patch in its run record, which
// lives with the journal in the state directory, outside the copy), and
// the verifier checks each end. Running a batch with a shared limiter:
//
//	lims := retry.NewLimiters(retry.LimiterConfig{})
//	base := lifecycle.Config{
//		Model: model,
//		Retry: retry.Policy{Limiter: lims.For("anthropic", key)}, // zero fields: the defaults
//	}
//	specs, err := taskfile.LoadList("tasks.yaml")
//	// ...
//	sum, err := batch.Run(ctx, batch.Config{Parallel: 8, Run: batch.AgentRunner(base), Progress: os.Stderr}, specs)
//	// ...
//	sum.WriteTable(os.Stdout)
//	if !sum.AllDone() {
//		// some task ended unverified or failed: sum.Outcome() is not-all-done
//	}
package batch
