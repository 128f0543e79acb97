package ledger

import (
	"database/sql"

	"github.com/riverqueue/river/riverdriver/riversqlite"
)

// sqliteDriver is River's SQLite driver, told to say it has no listener.
//
// riversqlite emulates LISTEN/NOTIFY with an outbox table that a listener
// polls; in River's poll-only mode (which the ledger uses on SQLite, one
// process per queue) nothing reads that outbox, and because the driver
// claims a listener, River also skips waking its own fetcher when a job is
// inserted in the process. Every step then waited for the next fetch poll,
// which River jitters by at least 10ms. Reporting no listener makes River
// wake the fetcher on each insert (client.Insert, outside a transaction)
// and stop writing notifications nobody reads. River v0.51.2's client reads
// these two methods only to choose between those paths.
type sqliteDriver struct {
	*riversqlite.Driver
}

func newSQLiteDriver(db *sql.DB) *sqliteDriver { return &sqliteDriver{riversqlite.New(db)} }

// SupportsListener reports false: see sqliteDriver.
func (d *sqliteDriver) SupportsListener() bool { return false }

// SupportsListenNotify reports false: see sqliteDriver.
func (d *sqliteDriver) SupportsListenNotify() bool { return false }
