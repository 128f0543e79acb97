// Package ownfiles keeps the list of the files this process of nightshift
// writes for itself while it runs: the --events file, the --otel-file
// traces, a report page, the ledger's SQLite database and its -wal, -shm
// and -journal files. When one of them lies inside a workspace (the
// default with --dir . and a relative path), the journal leaves it out of
// what it captures, compares and rolls back, so that a rollback does not
// cut the events of the run that is rolling back, a command's diff does
// not count nightshift's own appends as the run's change, and the judge,
// which reads what the run changed, never reads the conversation through
// the events file.
//
//	done := ownfiles.Add("events.jsonl")
//	defer done()
//	rel := ownfiles.In("/home/you/project") // ["events.jsonl"] with --dir .
package ownfiles
