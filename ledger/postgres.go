//go:build !nopostgres

package ledger

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
)

// Postgres reports whether this build has the PostgreSQL store. A build
// with the tag nopostgres leaves pgx and River's pgx driver out: they
// cost every process that links them 2 MiB of memory at its start, used
// or not (see nopostgres.go).
const Postgres = true

func isPgNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// pgMigrateLock keys the advisory lock that lets several processes open a
// fresh PostgreSQL ledger at once.
const pgMigrateLock = 0x6e69676874 // "night"

func openPostgres(ctx context.Context, l *Ledger, dsn string) (backend, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("ledger: postgres: %w", err)
	}
	fail := func(err error) (backend, error) {
		pool.Close()
		return nil, fmt.Errorf("ledger: postgres: %w", err)
	}
	driver := riverpgxv5.New(pool)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fail(err)
	}
	_, err = conn.Exec(ctx, "SELECT pg_advisory_lock($1)", pgMigrateLock)
	if err == nil {
		err = migrate(ctx, driver)
		if err == nil {
			err = createTables(ctx, pgxQ{pool}, postgresDialect)
		}
		conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", pgMigrateLock) //nolint:errcheck // released with the session anyway
	}
	conn.Release()
	if err != nil {
		return fail(err)
	}
	return &riverBackend[*riverpgxv5.Driver, pgx.Tx]{
		l: l, q: pgxQ{pool}, driver: driver, dialect: postgresDialect,
		begin:    func(ctx context.Context) (pgx.Tx, error) { return pool.Begin(ctx) },
		commit:   func(ctx context.Context, tx pgx.Tx) error { return tx.Commit(ctx) },
		rollback: func(ctx context.Context, tx pgx.Tx) { tx.Rollback(context.WithoutCancel(ctx)) }, //nolint:errcheck // the cause is returned
		wrap:     func(tx pgx.Tx) querier { return pgxQ{tx} },
		closer:   pool.Close,
	}, nil
}

// pgxQ adapts *pgxpool.Pool and pgx.Tx.
type pgxQ struct {
	db interface {
		Exec(ctx context.Context, q string, args ...any) (pgconn.CommandTag, error)
		Query(ctx context.Context, q string, args ...any) (pgx.Rows, error)
		QueryRow(ctx context.Context, q string, args ...any) pgx.Row
	}
}

func (p pgxQ) exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := p.db.Exec(ctx, rebind(q), args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (p pgxQ) query(ctx context.Context, q string, args ...any) (rows, error) {
	r, err := p.db.Query(ctx, rebind(q), args...)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (p pgxQ) queryRow(ctx context.Context, q string, args ...any) row {
	return p.db.QueryRow(ctx, rebind(q), args...)
}
