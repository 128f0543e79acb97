//go:build nopostgres

package ledger

import (
	"context"
	"fmt"
)

// Postgres reports whether this build has the PostgreSQL store: not this
// one, built with the tag nopostgres. Go runs the package initialisation
// of everything a binary links, whether a command uses it or not, and
// pgx's (with River's pgx driver) was 2 MiB of the peak memory of every
// `nightshift run` on SQLite or none; a build without it opens SQLite
// ledgers only, and Open refuses a postgres:// URL with ErrNoPostgres.
const Postgres = false

func openPostgres(context.Context, *Ledger, string) (backend, error) {
	return nil, fmt.Errorf("ledger: %w", ErrNoPostgres)
}

func isPgNoRows(error) bool { return false }
