// Package ledger is the durable record of nightshift's nights: the backlog of
// tasks with their scores, every step a role took, every failure with the
// scope it was charged to and the reason, the nights with how they ended, and
// the parked actions waiting for a person.
//
// The work queue runs on River: each step is a River job. One transaction
// claims the step's task, reserves its place under the role's ceiling and
// writes the step's row; the job is queued as soon as that commits (outside
// it, so River wakes its fetcher at once), and completed (JobCompleteTx) in
// the same transaction that records what the step did. A crash therefore
// never leaves a job finished without its record: at worst a step is left
// running, with or without its job, and the night's recovery gives it back.
//
// On SQLite each connection keeps its statements prepared (SQLite's parser
// was the largest cost of a step), and River's fetcher is woken in the
// process on each insert instead of polling: a step's bookkeeping costs
// about 2ms, so the bookkeeping is never what limits a night
// (night.BenchmarkBuilderSteps).
//
// Two stores share one schema and one conformance suite: SQLite (one file,
// the default, through riversqlite and modernc.org/sqlite) and PostgreSQL
// (riverpgxv5), chosen by the DSN given to Open:
//
//	l, err := ledger.Open(ctx, "night.db", ledger.Config{})
//	l, err := ledger.Open(ctx, "postgres://user@host/db", ledger.Config{})
//
// Times are stored as Unix milliseconds so that both stores read them back
// the same; they come from the caller (the night's clock), never from the
// database, so a simulated night is recorded in simulated time.
package ledger
