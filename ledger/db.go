package ledger

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// querier is the little SQL the ledger needs, over database/sql (SQLite) and
// pgx (PostgreSQL) alike. Queries are written with ? placeholders; the pgx
// side rewrites them to $n.
type querier interface {
	exec(ctx context.Context, q string, args ...any) (int64, error)
	query(ctx context.Context, q string, args ...any) (rows, error)
	queryRow(ctx context.Context, q string, args ...any) row
}

type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

type row interface {
	Scan(dest ...any) error
}

// sqlQ adapts *sql.DB and *sql.Tx.
type sqlQ struct {
	db interface {
		ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
		QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
		QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
	}
}

func (s sqlQ) exec(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := s.db.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (s sqlQ) query(ctx context.Context, q string, args ...any) (rows, error) {
	r, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}

func (s sqlQ) queryRow(ctx context.Context, q string, args ...any) row {
	return s.db.QueryRowContext(ctx, q, args...)
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() } //nolint:errcheck // Err reports read failures

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

// rebind turns ? placeholders into PostgreSQL's $1, $2, ... The ledger's
// queries never hold a ? inside a string literal.
func rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// collect reads every row with scan and closes rows.
func collect[T any](r rows, err error, scan func(r rows) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []T
	for r.Next() {
		v, err := scan(r)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, r.Err()
}

// isNoRows reports whether a queryRow found no row, on either store.
func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) || errors.Is(err, pgx.ErrNoRows) }
