package ledger

import (
	"context"
	"strings"
)

// schema is the ledger's own tables, beside River's. Every time is Unix
// milliseconds; 0 means "not yet". Nothing is NULL, so both stores scan the
// same Go types. {{ID}} and {{FLOAT}} are filled per dialect.
const schema = `
CREATE TABLE IF NOT EXISTS ns_tasks (
	id {{ID}},
	title TEXT NOT NULL,
	body TEXT NOT NULL DEFAULT '',
	source TEXT NOT NULL DEFAULT 'person',
	score {{FLOAT}} NOT NULL DEFAULT 0,
	scored INTEGER NOT NULL DEFAULT 0,
	state TEXT NOT NULL DEFAULT 'queued',
	level INTEGER NOT NULL DEFAULT 0,
	front INTEGER NOT NULL DEFAULT 0,
	created_at BIGINT NOT NULL,
	updated_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS ns_nights (
	id {{ID}},
	name TEXT NOT NULL UNIQUE,
	window_start BIGINT NOT NULL,
	window_end BIGINT NOT NULL,
	started_at BIGINT NOT NULL,
	ended_at BIGINT NOT NULL DEFAULT 0,
	end_kind TEXT NOT NULL DEFAULT '',
	end_reason TEXT NOT NULL DEFAULT '',
	proposer_steps INTEGER NOT NULL DEFAULT 0,
	judge_steps INTEGER NOT NULL DEFAULT 0,
	builder_steps INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS ns_steps (
	id {{ID}},
	night_id BIGINT NOT NULL,
	role TEXT NOT NULL,
	worker TEXT NOT NULL,
	level INTEGER NOT NULL DEFAULT 0,
	task_id BIGINT NOT NULL DEFAULT 0,
	job_id BIGINT NOT NULL DEFAULT 0,
	owner TEXT NOT NULL DEFAULT '',
	state TEXT NOT NULL,
	outcome TEXT NOT NULL DEFAULT '',
	reason TEXT NOT NULL DEFAULT '',
	answer TEXT NOT NULL DEFAULT '',
	checks TEXT NOT NULL DEFAULT '',
	tokens BIGINT NOT NULL DEFAULT 0,
	started_at BIGINT NOT NULL,
	ended_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS ns_steps_night ON ns_steps (night_id, role);
CREATE TABLE IF NOT EXISTS ns_failures (
	id {{ID}},
	night_id BIGINT NOT NULL DEFAULT 0,
	step_id BIGINT NOT NULL DEFAULT 0,
	task_id BIGINT NOT NULL DEFAULT 0,
	role TEXT NOT NULL DEFAULT '',
	worker TEXT NOT NULL DEFAULT '',
	level INTEGER NOT NULL DEFAULT 0,
	scope TEXT NOT NULL,
	rule TEXT NOT NULL DEFAULT '',
	reason TEXT NOT NULL,
	manual INTEGER NOT NULL DEFAULT 0,
	at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS ns_failures_night ON ns_failures (night_id);
CREATE INDEX IF NOT EXISTS ns_failures_task ON ns_failures (task_id);
CREATE TABLE IF NOT EXISTS ns_parked (
	id {{ID}},
	task_id BIGINT NOT NULL,
	night_id BIGINT NOT NULL DEFAULT 0,
	step_id BIGINT NOT NULL DEFAULT 0,
	action TEXT NOT NULL,
	reason TEXT NOT NULL DEFAULT '',
	asked_at BIGINT NOT NULL,
	deadline BIGINT NOT NULL,
	decision TEXT NOT NULL DEFAULT '',
	decided_at BIGINT NOT NULL DEFAULT 0,
	used INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS ns_notes (
	id {{ID}},
	night_id BIGINT NOT NULL,
	at BIGINT NOT NULL,
	kind TEXT NOT NULL,
	text TEXT NOT NULL
);
`

// dialect is what differs between the two stores' DDL.
type dialect struct {
	id, float string
}

var (
	sqliteDialect   = dialect{id: "INTEGER PRIMARY KEY", float: "REAL"}
	postgresDialect = dialect{id: "BIGSERIAL PRIMARY KEY", float: "DOUBLE PRECISION"}
)

// createTables creates the ledger's tables if they are missing. River's own
// tables are created by rivermigrate before this runs.
func createTables(ctx context.Context, q querier, d dialect) error {
	ddl := strings.NewReplacer("{{ID}}", d.id, "{{FLOAT}}", d.float).Replace(schema + memorySchema)
	for _, stmt := range strings.Split(ddl, ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := q.exec(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}
