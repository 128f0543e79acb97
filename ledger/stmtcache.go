package ledger

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"reflect"
)

// The SQLite driver parses every statement it is handed through
// database/sql, every time: profiling a night showed SQLite's parser taking
// about 40% of the CPU of a builder step, most of it on River's long
// queries, which are the same few strings step after step. cachedConnector
// keeps each connection's statements prepared, keyed by their text, so a
// statement is parsed once per connection. It sits under database/sql, so
// River's queries and the ledger's own are cached alike.

// maxCachedStmts bounds the statements kept per connection: the ledger and
// River use a few dozen distinct strings; a text past the bound runs
// unprepared, as it would without the cache.
const maxCachedStmts = 256

// cachedConnector opens connections of drv, each with a statement cache.
type cachedConnector struct {
	drv driver.Driver
	dsn string
}

// openCachedSQLite opens dsn with the registered "sqlite" driver behind a
// statement cache.
func openCachedSQLite(dsn string) (*sql.DB, error) {
	probe, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	drv := probe.Driver()
	if err := probe.Close(); err != nil {
		return nil, err
	}
	return sql.OpenDB(cachedConnector{drv: drv, dsn: dsn}), nil
}

func (c cachedConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &cachedConn{Conn: conn, stmts: map[string]*cachedStmt{}}, nil
}

func (c cachedConnector) Driver() driver.Driver { return c.drv }

// cachedStmt is one prepared statement; busy while rows read from it are
// open, since one prepared statement can run only one query at a time.
type cachedStmt struct {
	stmt driver.Stmt
	busy bool
}

// cachedConn is a driver connection with its prepared statements.
// database/sql never uses one connection from two goroutines at once, so
// the cache needs no lock.
type cachedConn struct {
	driver.Conn
	stmts map[string]*cachedStmt
}

var (
	_ driver.ConnBeginTx        = (*cachedConn)(nil)
	_ driver.ConnPrepareContext = (*cachedConn)(nil)
	_ driver.ExecerContext      = (*cachedConn)(nil)
	_ driver.QueryerContext     = (*cachedConn)(nil)
	_ driver.SessionResetter    = (*cachedConn)(nil)
	_ driver.Validator          = (*cachedConn)(nil)
	_ driver.Pinger             = (*cachedConn)(nil)
)

// stmt returns the free prepared statement for query, preparing it the
// first time, or nil when it is busy or the cache is full.
func (c *cachedConn) stmt(ctx context.Context, query string) (*cachedStmt, error) {
	if s, ok := c.stmts[query]; ok {
		if s.busy {
			return nil, nil
		}
		return s, nil
	}
	if len(c.stmts) >= maxCachedStmts {
		return nil, nil
	}
	st, err := c.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s := &cachedStmt{stmt: st}
	c.stmts[query] = s
	return s, nil
}

func (c *cachedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
	}
	return s.stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (c *cachedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	}
	r, err := s.stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	s.busy = true
	return &cachedRows{Rows: r, s: s}, nil
}

func (c *cachedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *cachedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *cachedConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *cachedConn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *cachedConn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// Close finalizes the cached statements, then closes the connection.
func (c *cachedConn) Close() error {
	var errs []error
	for q, s := range c.stmts {
		errs = append(errs, s.stmt.Close())
		delete(c.stmts, q)
	}
	errs = append(errs, c.Conn.Close())
	return errors.Join(errs...)
}

// cachedRows frees its statement for the next query when closed.
type cachedRows struct {
	driver.Rows
	s *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.s.busy = false
	return err
}

// The column-type methods pass through, so database/sql's ColumnTypes
// reads the same as without the cache.

func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *cachedRows) ColumnTypeLength(i int) (int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeLength); ok {
		return t.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *cachedRows) ColumnTypeNullable(i int) (bool, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *cachedRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypePrecisionScale); ok {
		return t.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}

func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}
