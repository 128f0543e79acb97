package ledger

import (
	"context"
	"database/sql"
	"strings"
)

// schema is the ledger's own tables, beside River's. Every time is Unix
// milliseconds; 0 means "not yet". Nothing is NULL but a step's cost_usd,
// which is NULL when the model table could not price the step: an unknown
// cost never reads as free. {{ID}} and {{FLOAT}} are filled per dialect.
//
// A night's shared state is in these tables, never in a process:
// ns_failures holds tonight's skip list, workers out and stops (by scope),
// and the failed steps the second-failure rule counts; ns_tokens the
// tokens spent tonight per worker (with the cache's share and the cost,
// and how many steps could not be priced); ns_tasks the WIP; ns_nights the
// reservations under each role's ceiling and the chains idle until a step
// in flight is recorded; ns_members who joined the night
// with how many step chains; ns_stops the system stops a night was
// resumed after.
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
	builder_steps INTEGER NOT NULL DEFAULT 0,
	epoch INTEGER NOT NULL DEFAULT 0,
	stop_mark BIGINT NOT NULL DEFAULT 0,
	idle_chains INTEGER NOT NULL DEFAULT 0
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
	cache_write_tokens BIGINT NOT NULL DEFAULT 0,
	cache_read_tokens BIGINT NOT NULL DEFAULT 0,
	cost_usd {{FLOAT}},
	started_at BIGINT NOT NULL,
	ended_at BIGINT NOT NULL DEFAULT 0,
	pending INTEGER NOT NULL DEFAULT 0,
	continues BIGINT NOT NULL DEFAULT 0,
	lease_until BIGINT NOT NULL DEFAULT 0,
	cont_job BIGINT NOT NULL DEFAULT 0
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
CREATE TABLE IF NOT EXISTS ns_tokens (
	night_id BIGINT NOT NULL,
	role TEXT NOT NULL,
	worker TEXT NOT NULL,
	tokens BIGINT NOT NULL DEFAULT 0,
	cache_write_tokens BIGINT NOT NULL DEFAULT 0,
	cache_read_tokens BIGINT NOT NULL DEFAULT 0,
	cost_usd {{FLOAT}} NOT NULL DEFAULT 0,
	unpriced INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (night_id, role, worker)
);
CREATE TABLE IF NOT EXISTS ns_members (
	night_id BIGINT NOT NULL,
	owner TEXT NOT NULL,
	epoch INTEGER NOT NULL DEFAULT 0,
	joined_at BIGINT NOT NULL,
	PRIMARY KEY (night_id, owner)
);
CREATE TABLE IF NOT EXISTS ns_stops (
	id {{ID}},
	night_id BIGINT NOT NULL,
	stopped_at BIGINT NOT NULL,
	end_kind TEXT NOT NULL,
	end_reason TEXT NOT NULL,
	resumed_at BIGINT NOT NULL,
	owner TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS ns_notes (
	id {{ID}},
	night_id BIGINT NOT NULL,
	at BIGINT NOT NULL,
	kind TEXT NOT NULL,
	text TEXT NOT NULL
);
`

// added are the columns added to tables of earlier versions, which
// CREATE TABLE IF NOT EXISTS leaves as they were.
var added = []struct{ table, column, def string }{
	// A task's own verify keys (JSON); empty: the builder role's alone.
	{"ns_tasks", "verify", "TEXT NOT NULL DEFAULT ''"},
	{"ns_nights", "epoch", "INTEGER NOT NULL DEFAULT 0"},
	{"ns_nights", "stop_mark", "BIGINT NOT NULL DEFAULT 0"},
	{"ns_nights", "idle_chains", "INTEGER NOT NULL DEFAULT 0"},
	{"ns_steps", "pending", "INTEGER NOT NULL DEFAULT 0"},
	{"ns_steps", "continues", "BIGINT NOT NULL DEFAULT 0"},
	{"ns_steps", "lease_until", "BIGINT NOT NULL DEFAULT 0"},
	{"ns_steps", "cont_job", "BIGINT NOT NULL DEFAULT 0"},
	// A step of an earlier version has no known cost: NULL, unknown.
	{"ns_steps", "cache_write_tokens", "BIGINT NOT NULL DEFAULT 0"},
	{"ns_steps", "cache_read_tokens", "BIGINT NOT NULL DEFAULT 0"},
	{"ns_steps", "cost_usd", "{{FLOAT}}"},
	{"ns_tokens", "cache_write_tokens", "BIGINT NOT NULL DEFAULT 0"},
	{"ns_tokens", "cache_read_tokens", "BIGINT NOT NULL DEFAULT 0"},
	{"ns_tokens", "cost_usd", "{{FLOAT}} NOT NULL DEFAULT 0"},
	{"ns_tokens", "unpriced", "INTEGER NOT NULL DEFAULT 0"},
}

// dialect is what differs between the two stores' SQL.
type dialect struct {
	id, float string
	// forUpdate locks the rows a SELECT read until the transaction ends.
	forUpdate string
	postgres  bool
}

var (
	sqliteDialect   = dialect{id: "INTEGER PRIMARY KEY", float: "REAL"}
	postgresDialect = dialect{id: "BIGSERIAL PRIMARY KEY", float: "DOUBLE PRECISION", forUpdate: " FOR UPDATE", postgres: true}
)

// createTables creates the ledger's tables if they are missing. River's own
// tables are created by rivermigrate before this runs.
func createTables(ctx context.Context, q querier, d dialect) error {
	fill := strings.NewReplacer("{{ID}}", d.id, "{{FLOAT}}", d.float)
	ddl := fill.Replace(schema + memorySchema + setupSchema + dropsSchema)
	for _, stmt := range strings.Split(ddl, ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := q.exec(ctx, stmt); err != nil {
			return err
		}
	}
	for _, a := range added {
		if err := addColumn(ctx, q, d, a.table, a.column, fill.Replace(a.def)); err != nil {
			return err
		}
	}
	// Indexes on columns an older ledger may lack come after them.
	for _, stmt := range []string{
		"CREATE INDEX IF NOT EXISTS ns_steps_job ON ns_steps (job_id)",
		"CREATE INDEX IF NOT EXISTS ns_steps_state ON ns_steps (state, pending)",
		// The backlog is read before every step: its few active tasks
		// among every task ever done.
		"CREATE INDEX IF NOT EXISTS ns_tasks_state ON ns_tasks (state)",
	} {
		if _, err := q.exec(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}

// addColumn adds a column to a table of an earlier version's ledger.
func addColumn(ctx context.Context, q querier, d dialect, table, column, def string) error {
	if d.postgres {
		_, err := q.exec(ctx, "ALTER TABLE "+table+" ADD COLUMN IF NOT EXISTS "+column+" "+def)
		return err
	}
	var n int
	if err := q.queryRow(ctx, "SELECT count(*) FROM pragma_table_info(?) WHERE name = ?", table, column).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	_, err := q.exec(ctx, "ALTER TABLE "+table+" ADD COLUMN "+column+" "+def)
	return err
}

// plainSQL runs the one-off statements that create the ledger's tables,
// unprepared.
type plainSQL struct{ db *sql.DB }

func (p plainSQL) exec(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := p.db.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (p plainSQL) query(ctx context.Context, q string, args ...any) (rows, error) {
	r, err := p.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}

func (p plainSQL) queryRow(ctx context.Context, q string, args ...any) row {
	return p.db.QueryRowContext(ctx, q, args...)
}
