package ledger

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
	"github.com/nightshift-dev/nightshift/internal/ownfiles"
)

// Config configures a Ledger. The zero value is ready to use.
type Config struct {
	// Concurrency is how many steps this process runs at once, and how
	// many step chains it brings to a night it joins (`night
	// --concurrency`). Default 1. (A worker is a role's model, the
	// failure scope: never a process or a count.)
	Concurrency int
	// Workers is Concurrency's old name, read when Concurrency is 0.
	//
	// Deprecated: use Concurrency; Workers goes in the next release.
	Workers int
	// Owner names this process in the step rows and its own River queue;
	// a step runs where it was taken, so only a process of the same owner
	// continues or recovers it. It must stay the same across restarts, and
	// two processes sharing a database must have different names.
	// Lowercase letters and digits, joined by "_" or "-", at most 58
	// characters. Default: "ns_" and eight hex digits derived from the
	// host name.
	Owner string
	// Lease is how long a step may run before River takes it back (its
	// job's timeout), and how long an interrupted step waits for its owner
	// to continue it, before another process records it interrupted and
	// retries it from its start. Default 1h, River's own default for
	// rescuing the jobs of a process that died.
	Lease time.Duration
	// Logger receives River's logs. Default: discarded.
	Logger *slog.Logger
	// Clock is the wall clock leases are measured on; default
	// clock.Real{}. (River times a running step's lease on the real
	// clock whatever this is.)
	Clock clock.Clock
	// Redact replaces the credentials in a text (redact.Redactor's
	// String): every text the ledger writes passes through it first —
	// steps' reasons, answers and failed checks, failures, notes, task
	// notes, parked actions, tasks, nights' reasons — so that no
	// credential's value is stored, whoever reads the ledger later.
	// Default: none.
	Redact func(string) string
}

// DefaultLease is the lease of a step when Config.Lease is zero.
const DefaultLease = time.Hour

// ErrBadOwner is returned by Open for an owner name River cannot use as a
// queue name.
var ErrBadOwner = errors.New("ledger: bad owner name (NIGHTSHIFT_OWNER)")

// ownerName is what River accepts in a queue name (the owner's queue is
// "owner_" and the name), lowercased so that two spellings never name two
// owners.
var ownerName = lazyregexp.New(`^[a-z0-9]+(?:[_-][a-z0-9]+)*$`)

// opened counts the calls of Open in this process.
var opened atomic.Int64

// Opened returns how many times this process called Open: a test's hook
// to see that a command which needs no ledger (a plain run) opened no
// database, SQLite or PostgreSQL, and started no River.
func Opened() int64 { return opened.Load() }

// ErrNoPostgres is returned by Open for a postgres:// URL in a build
// without the PostgreSQL store (the tag nopostgres; see Postgres).
var ErrNoPostgres = errors.New("this build has no PostgreSQL store (built with -tags nopostgres): open a SQLite ledger, or use a build without that tag")

// IsPostgres reports whether dsn names a PostgreSQL database rather than
// a SQLite file.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open opens (creating if needed) the ledger at dsn: a postgres:// URL, or
// a SQLite file path (optionally prefixed sqlite:// or sqlite:). It runs
// River's migrations and creates the ledger's tables. No River client runs
// until Work.
func Open(ctx context.Context, dsn string, cfg Config) (*Ledger, error) {
	opened.Add(1)
	if dsn == "" {
		return nil, fmt.Errorf("ledger: empty database name")
	}
	if cfg.Owner == "" {
		host, _ := os.Hostname()
		sum := sha256.Sum256([]byte(host))
		cfg.Owner = "ns_" + hex.EncodeToString(sum[:4])
	}
	if !ownerName.MatchString(cfg.Owner) || len(cfg.Owner) > 58 {
		return nil, fmt.Errorf("%w: %q: use lowercase letters and digits, joined by _ or -, at most 58 characters", ErrBadOwner, cfg.Owner)
	}
	l := &Ledger{
		owner:       cfg.Owner,
		concurrency: max(cmp.Or(cfg.Concurrency, cfg.Workers), 1),
		lease:       cmp.Or(cfg.Lease, DefaultLease),
		logger:      cmp.Or(cfg.Logger, slog.New(slog.NewTextHandler(io.Discard, nil))),
		wall:        cmp.Or[clock.Clock](cfg.Clock, clock.Real{}),
		redact:      cfg.Redact,
	}
	var err error
	if IsPostgres(dsn) {
		l.postgres = true
		l.b, err = openPostgres(ctx, l, dsn)
	} else {
		l.b, err = openSQLite(ctx, l, dsn)
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

func openSQLite(ctx context.Context, l *Ledger, dsn string) (backend, error) {
	path := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite://"), "sqlite:")
	// WAL and one connection: River's advice for SQLite (riversqlite's
	// package doc); busy_timeout lets a second process wait its turn, and
	// immediate transactions take the write lock at BEGIN, so that two
	// processes never both read a night's state and then collide on
	// writing it. synchronous(NORMAL) is safe with WAL: a commit survives
	// a crash of the process, and only a power cut can lose the last
	// commits, never corrupt the file.
	// The database (and SQLite's files beside it) is nightshift's own:
	// in a workspace, no run's journal captures or rolls it back.
	ownfiles.AddSQLite(path)
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("ledger: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	driver := riversqlite.New(db)
	fail := func(err error) (backend, error) {
		db.Close() //nolint:errcheck // already failing
		return nil, fmt.Errorf("ledger: %s: %w", path, err)
	}
	if err := migrate(ctx, driver); err != nil {
		return fail(err)
	}
	if err := createTables(ctx, plainSQL{db}, sqliteDialect); err != nil {
		return fail(err)
	}
	ps, err := prepareHot(ctx, db)
	if err != nil {
		return fail(err)
	}
	q := sqlQ{db: db, ps: ps}
	return &riverBackend[*riversqlite.Driver, *sql.Tx]{
		l: l, q: q, driver: driver, dialect: sqliteDialect,
		begin:    func(ctx context.Context) (*sql.Tx, error) { return db.BeginTx(ctx, nil) },
		commit:   func(_ context.Context, tx *sql.Tx) error { return tx.Commit() },
		rollback: func(_ context.Context, tx *sql.Tx) { tx.Rollback() }, //nolint:errcheck // the cause is returned
		wrap:     func(tx *sql.Tx) querier { return sqlQ{db: db, tx: tx, ps: ps} },
		closer:   func() { db.Close() }, //nolint:errcheck // closes the prepared statements too
	}, nil
}

func migrate[TTx any](ctx context.Context, driver riverdriver.Driver[TTx]) error {
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	return err
}
