// Package budget keeps a run's spend under its limits: a Meter counts the
// tokens and dollars of every model call of a run (the worker's, the
// judge's, a compaction's) and refuses, before it is made, a call that
// would likely cross a limit, with an error matching ErrExceeded.
//
// A limit is checked before each call, not after: the call that would
// cross it is the one not made. Its size is estimated from the request
// (the prompt's characters, calibrated by the tokens the previous call of
// the same model really used) and its output from the model's average so
// far; a run that has reached 100 % makes no further call at all.
//
//	m := budget.NewMeter(budget.Limits{USD: 0.50}, budget.Spend{})
//	worker := m.Model(model, func(u llm.Usage) models.Cost { return table.Cost("anthropic", name, u) })
//	_, err := worker.Generate(ctx, req)
//	if errors.Is(err, budget.ErrExceeded) {
//		// stop the run, checkpointed: outcome budget
//	}
package budget
