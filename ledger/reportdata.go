package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// setupSchema keeps how each night was set up, as its first process (or
// the latest to resume it) saw the pipeline: the morning report draws a
// night against its own ceilings and models, which the pipeline file may
// have changed since. The setup is JSON, so that a setting added later
// needs no new column.
const setupSchema = `
CREATE TABLE IF NOT EXISTS ns_setups (
	night_id BIGINT NOT NULL PRIMARY KEY,
	setup TEXT NOT NULL,
	at BIGINT NOT NULL
);
`

// Setup is how a night was set up: each role's models (in the order the
// role tries them) and step ceiling, the night's token budget and its
// window's zone.
type Setup struct {
	// Zone is the window's time zone (an IANA name); empty means UTC.
	Zone string `json:"zone,omitempty"`
	// Roles holds the pipeline's roles.
	Roles map[Role]RoleSetup `json:"roles"`
	// BudgetTokens is the night's token budget, all roles together; 0
	// means none.
	BudgetTokens int64 `json:"budget_tokens,omitempty"`
	// WIP is the cap on ideas in progress.
	WIP int `json:"wip,omitempty"`
	// Models are the pipeline's models by name: what the report names
	// when a provider refuses one's key. Nil for nights of earlier
	// versions.
	Models map[string]ModelSetup `json:"models,omitempty"`
	// Pipeline is the pipeline file the night ran, WorkDir the folder of
	// its tasks' workspaces (task-<ID> in it) and StateBase the state
	// directory it was given (--state-dir; empty: the default), as
	// absolute paths when known: the commands the report suggests, and
	// `nightshift task show`, find them there.
	Pipeline  string `json:"pipeline,omitempty"`
	WorkDir   string `json:"work_dir,omitempty"`
	StateBase string `json:"state_base,omitempty"`
	// Charges are how the night's rules table (its pipeline's rules over
	// the default) charges the failures a person's commands record, by
	// rule ("by-hand": `task fail`, "denied": `task deny`), so that those
	// commands charge as the night would. Nil for nights of earlier
	// versions: the default table's.
	Charges map[string]Charge `json:"charges,omitempty"`
}

// ModelSetup is one model of a night's pipeline, as the morning reader
// needs it named: never its key, only the variable that holds it.
type ModelSetup struct {
	Provider string `json:"provider"`
	// Model is the provider's model name, as the pipeline gives it or
	// its default.
	Model string `json:"model,omitempty"`
	// KeyEnv is the environment variable its key is read from; empty for
	// a model that needs none.
	KeyEnv string `json:"key_env,omitempty"`
}

// RoleSetup is one role's part of a night's setup.
type RoleSetup struct {
	// Models are the role's workers, by pipeline name, in order.
	Models []string `json:"models"`
	// Ceiling is the most steps the role takes in the night; 0 means none.
	Ceiling int `json:"ceiling,omitempty"`
}

// Location returns the setup's zone, UTC when it has none or it does not
// load.
func (s Setup) Location() *time.Location {
	if s.Zone == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(s.Zone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// SetSetup records how a night is set up, replacing what an earlier
// process recorded: the latest setup is the one in effect.
func (l *Ledger) SetSetup(ctx context.Context, night int64, s Setup, at time.Time) error {
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("ledger: setup: %w", err)
	}
	_, err = l.b.pool().exec(ctx, `INSERT INTO ns_setups (night_id, setup, at) VALUES (?, ?, ?)
		ON CONFLICT (night_id) DO UPDATE SET setup = excluded.setup, at = excluded.at`, night, string(data), ms(at))
	return err
}

// NightSetup returns how a night was set up, or ErrNotFound when no
// process recorded it (a night of an earlier version).
func (l *Ledger) NightSetup(ctx context.Context, night int64) (Setup, error) {
	var data string
	err := l.b.pool().queryRow(ctx, "SELECT setup FROM ns_setups WHERE night_id = ?", night).Scan(&data)
	if isNoRows(err) {
		return Setup{}, fmt.Errorf("setup of night %d: %w", night, ErrNotFound)
	}
	if err != nil {
		return Setup{}, err
	}
	var s Setup
	if err := json.Unmarshal([]byte(data), &s); err != nil {
		return Setup{}, fmt.Errorf("ledger: setup of night %d: %w", night, err)
	}
	return s, nil
}

// FailedSteps returns the role's failed steps of every night, oldest
// first: the report reads which tasks failed on every model of their
// role.
func (l *Ledger) FailedSteps(ctx context.Context, role Role) ([]Step, error) {
	return querySteps(ctx, l.b.pool(), "role = ? AND state = ?", role, StepFailed)
}
