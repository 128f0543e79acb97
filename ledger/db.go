package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
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

// sqlQ adapts *sql.DB and *sql.Tx (tx set) for SQLite.
type sqlQ struct {
	db *sql.DB
	tx *sql.Tx
	ps map[string]*sql.Stmt
}

// hot holds the statements the ledger runs at every step of a night. On
// SQLite each is prepared once, through database/sql, when the ledger
// opens, and run again with new arguments: SQLite would otherwise parse
// each of them at every step, a fifth of a step's bookkeeping (see
// night.BenchmarkBuilderSteps). They are the ledger's own statements;
// River's are River's business and left alone. (PostgreSQL needs none of
// this: pgx prepares and keeps statements by itself.)
var hot = map[string]bool{}

// hotSQL marks q as one of the hot statements and returns it.
func hotSQL(q string) string {
	hot[q] = true
	return q
}

// prepareHot prepares the hot statements on db, before anything else uses
// it: with one connection, a statement cannot be prepared while a
// transaction holds it.
func prepareHot(ctx context.Context, db *sql.DB) (map[string]*sql.Stmt, error) {
	ps := make(map[string]*sql.Stmt, len(hot))
	for q := range hot {
		st, err := db.PrepareContext(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("prepare %q: %w", q, err)
		}
		ps[q] = st
	}
	return ps, nil
}

// stmt returns q prepared (in the transaction when there is one), or nil
// when q is not a hot statement.
func (s sqlQ) stmt(ctx context.Context, q string) *sql.Stmt {
	st := s.ps[q]
	if st == nil || s.tx == nil {
		return st
	}
	return s.tx.StmtContext(ctx, st)
}

func (s sqlQ) exec(ctx context.Context, q string, args ...any) (int64, error) {
	var res sql.Result
	var err error
	switch st := s.stmt(ctx, q); {
	case st != nil:
		res, err = st.ExecContext(ctx, args...)
	case s.tx != nil:
		res, err = s.tx.ExecContext(ctx, q, args...)
	default:
		res, err = s.db.ExecContext(ctx, q, args...)
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (s sqlQ) query(ctx context.Context, q string, args ...any) (rows, error) {
	var r *sql.Rows
	var err error
	switch st := s.stmt(ctx, q); {
	case st != nil:
		r, err = st.QueryContext(ctx, args...)
	case s.tx != nil:
		r, err = s.tx.QueryContext(ctx, q, args...)
	default:
		r, err = s.db.QueryContext(ctx, q, args...)
	}
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}

func (s sqlQ) queryRow(ctx context.Context, q string, args ...any) row {
	switch st := s.stmt(ctx, q); {
	case st != nil:
		return st.QueryRowContext(ctx, args...)
	case s.tx != nil:
		return s.tx.QueryRowContext(ctx, q, args...)
	}
	return s.db.QueryRowContext(ctx, q, args...)
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() } //nolint:errcheck // Err reports read failures

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
func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) || isPgNoRows(err) }
