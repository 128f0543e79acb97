// Package ledger is the durable record of nightshift's nights, and the one
// place a night's shared state lives: the backlog of tasks with their
// scores, every step a role took, every failure with the scope it was
// charged to and the reason (tonight's skip list, workers out and stops
// are these rows), the tokens spent per night and per worker, the nights
// with how they ended and the system stops they were resumed after, and
// the parked actions waiting for a person.
//
// A night's steps are River jobs, used as River means them to be used.
// Each process that joins a night brings its step chains (Config.Concurrency)
// to the night's queue; a chain's job may be taken by any process of the
// night. Whoever takes it decides, in one transaction holding the night's
// row (Handler.Decide, through a Tx): it reads the night's state as every
// process committed it, claims the step (its place under the role's
// ceiling, its task, its row) or ends the night or waits (River's
// snooze). The step's work runs on the job's context, which the process's
// shutdown cancels (River's StopAndCancel). A second transaction records
// what the step did, charging failures and spending budgets on the state
// as it is then (a SettleFunc), queues the chain's next job and completes
// this one (JobCompleteTx): a job is never finished without its record,
// and N processes sharing a night decide as one process would.
//
// A step runs where it was taken, and a builder step's journal is on
// that machine. An interrupted builder step keeps its changes (Pending)
// and its continuation is a job in its owner's own queue, which only a
// process of that owner (Config.Owner) works. Other owners leave it alone
// until its lease runs out (Config.Lease, the job's timeout), then record
// it interrupted and retry its task from the start. A process that died
// leaves its step's job running: a restart of the same owner records the
// step interrupted, queues its continuation, and marks the job for
// cancellation, which River's rescuer settles; with no restart, River's
// rescuer hands the job to another attempt once the lease ran out, and
// that attempt records the step interrupted and retries it from the start.
// Only the retry package retries model calls: River's attempts only ever
// re-run the steps of processes that died.
//
// River is configured through its public Config only (see newClient for
// each setting and what it costs); the bookkeeping of a step costs a few
// milliseconds (night.BenchmarkBuilderSteps).
//
// Two stores share one schema and one conformance suite: SQLite (one file,
// the default, through riversqlite and modernc.org/sqlite) and PostgreSQL
// (riverpgxv5), chosen by the DSN given to Open:
//
//	l, err := ledger.Open(ctx, "night.db", ledger.Config{})
//	l, err := ledger.Open(ctx, "postgres://user@host/db", ledger.Config{})
//
// Times are stored as Unix milliseconds so that both stores read them back
// the same; a night's times come from the caller (the night's clock),
// never from the database, so a simulated night is recorded in simulated
// time. Leases alone are wall-clock times: they are about processes.
package ledger
