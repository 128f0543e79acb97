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
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Config configures a Ledger. The zero value is ready to use.
type Config struct {
	// Workers is how many steps this process runs at once. Default 1.
	Workers int
	// Owner names this process in the step rows and its River queue; a
	// restarted process recovers only the steps of its own owner, so it
	// must keep its name across restarts, and two processes sharing a
	// database must have different names. Lowercase letters and digits,
	// joined by "_" or "-". Default: "ns_" and eight hex digits derived from the host name.
	Owner string
	// Logger receives River's logs. Default: discarded.
	Logger *slog.Logger
	// FetchCooldown is River's shortest pause between fetches; a step's
	// job is fetched as soon as it is inserted, so this bounds the
	// bookkeeping delay per step. Default 1ms.
	FetchCooldown time.Duration
	// FetchPollInterval is how often River looks for new jobs. A step's
	// job is queued outside any transaction, which wakes River's fetcher
	// at once (on PostgreSQL through NOTIFY, on SQLite in the process), so
	// polling is only the fallback for a job left by a process that died.
	// Default 100ms.
	FetchPollInterval time.Duration
}

// ErrBadOwner is returned by Open for an owner name River cannot use as a
// queue name.
var ErrBadOwner = errors.New("ledger: bad owner name (NIGHTSHIFT_OWNER)")

// ownerName is what River accepts as a queue name, lowercased so that two
// spellings never name two queues.
var ownerName = regexp.MustCompile(`^[a-z0-9]+(?:[_-][a-z0-9]+)*$`)

// IsPostgres reports whether dsn names a PostgreSQL database rather than
// a SQLite file.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open opens (creating if needed) the ledger at dsn: a postgres:// URL, or
// a SQLite file path (optionally prefixed sqlite:// or sqlite:). It runs
// River's migrations and creates the ledger's tables.
func Open(ctx context.Context, dsn string, cfg Config) (*Ledger, error) {
	if dsn == "" {
		return nil, fmt.Errorf("ledger: empty database name")
	}
	cfg.Workers = max(cfg.Workers, 1)
	cfg.FetchCooldown = cmp.Or(cfg.FetchCooldown, time.Millisecond)
	cfg.FetchPollInterval = max(cmp.Or(cfg.FetchPollInterval, 100*time.Millisecond), cfg.FetchCooldown)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Owner == "" {
		host, _ := os.Hostname()
		sum := sha256.Sum256([]byte(host))
		cfg.Owner = "ns_" + hex.EncodeToString(sum[:4])
	}
	if !ownerName.MatchString(cfg.Owner) {
		return nil, fmt.Errorf("%w: %q: use lowercase letters and digits, joined by _ or -", ErrBadOwner, cfg.Owner)
	}
	l := &Ledger{owner: cfg.Owner, runs: map[int64]*run{}}
	var err error
	if IsPostgres(dsn) {
		l.postgres = true
		l.b, err = openPostgres(ctx, l, dsn, cfg)
	} else {
		l.b, err = openSQLite(ctx, l, dsn, cfg)
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

func riverConfig[TDriver riverdriver.Driver[TTx], TTx any](b *riverBackend[TDriver, TTx], cfg Config, pollOnly bool) *river.Config {
	workers := river.NewWorkers()
	river.AddWorker[StepArgs](workers, &stepWorker[TDriver, TTx]{b: b})
	return &river.Config{
		// One slot more than the steps run at once: a worker hands its
		// result over just before its slot frees, and the next step's job
		// must not wait a poll interval for it.
		Queues:            map[string]river.QueueConfig{cfg.Owner: {MaxWorkers: cfg.Workers + 1}},
		Workers:           workers,
		Logger:            cfg.Logger,
		FetchCooldown:     cfg.FetchCooldown,
		FetchPollInterval: cfg.FetchPollInterval,
		// A builder step is a whole agent run; its own step brake and the
		// night's window bound it, not a job timeout.
		JobTimeout: -1,
		PollOnly:   pollOnly,
	}
}

func openSQLite(ctx context.Context, l *Ledger, dsn string, cfg Config) (backend, error) {
	path := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite://"), "sqlite:")
	// WAL and one connection: River's advice for SQLite (riversqlite's
	// package doc); busy_timeout lets a second process wait its turn.
	// synchronous(NORMAL) is safe with WAL: a commit survives a crash of
	// the process, and only a power cut can lose the last commits, never
	// corrupt the file.
	db, err := openCachedSQLite("file:" + path + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("ledger: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	driver := newSQLiteDriver(db)
	fail := func(err error) (backend, error) {
		db.Close() //nolint:errcheck // already failing
		return nil, fmt.Errorf("ledger: %s: %w", path, err)
	}
	if err := migrate(ctx, driver); err != nil {
		return fail(err)
	}
	q := sqlQ{db}
	if err := createTables(ctx, q, sqliteDialect); err != nil {
		return fail(err)
	}
	b := &riverBackend[*sqliteDriver, *sql.Tx]{
		l: l, q: q,
		begin:    func(ctx context.Context) (*sql.Tx, error) { return db.BeginTx(ctx, nil) },
		commit:   func(_ context.Context, tx *sql.Tx) error { return tx.Commit() },
		rollback: func(_ context.Context, tx *sql.Tx) { tx.Rollback() }, //nolint:errcheck // the cause is returned
		wrap:     func(tx *sql.Tx) querier { return sqlQ{tx} },
		closer:   func() { db.Close() }, //nolint:errcheck // nothing left to do
	}
	b.client, err = river.NewClient(driver, riverConfig(b, cfg, true))
	if err != nil {
		return fail(err)
	}
	return b, nil
}

// pgMigrateLock keys the advisory lock that lets several processes open a
// fresh PostgreSQL ledger at once.
const pgMigrateLock = 0x6e69676874 // "night"

func openPostgres(ctx context.Context, l *Ledger, dsn string, cfg Config) (backend, error) {
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
	b := &riverBackend[*riverpgxv5.Driver, pgx.Tx]{
		l: l, q: pgxQ{pool},
		begin:    func(ctx context.Context) (pgx.Tx, error) { return pool.Begin(ctx) },
		commit:   func(ctx context.Context, tx pgx.Tx) error { return tx.Commit(ctx) },
		rollback: func(ctx context.Context, tx pgx.Tx) { tx.Rollback(context.WithoutCancel(ctx)) }, //nolint:errcheck // the cause is returned
		wrap:     func(tx pgx.Tx) querier { return pgxQ{tx} },
		closer:   pool.Close,
	}
	b.client, err = river.NewClient(driver, riverConfig(b, cfg, false))
	if err != nil {
		return fail(err)
	}
	return b, nil
}

func migrate[TTx any](ctx context.Context, driver riverdriver.Driver[TTx]) error {
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	return err
}
