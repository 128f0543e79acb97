// Package ledger is the durable record of nightshift's nights: the backlog of
// tasks with their scores, every step a role took, every failure with the
// scope it was charged to and the reason, the nights with how they ended, and
// the parked actions waiting for a person.
//
// The work queue runs on River: each step is a River job, inserted in the
// same transaction that claims its task and reserves its place under the
// role's ceiling, and completed (JobCompleteTx) in the same transaction that
// records what the step did. A crash therefore never leaves a step recorded
// without its job, or a job finished without its record.
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
