package ledger

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStatementCache: the cache is invisible to its users. A statement
// runs again with new arguments, a query runs while rows of the same text
// are still open (the second one unprepared), and writes inside a rolled
// back transaction are gone.
func TestStatementCache(t *testing.T) {
	ctx := context.Background()
	db, err := openCachedSQLite("file:" + filepath.Join(t.TempDir(), "cache.db") + "?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close() //nolint:errcheck // test cleanup
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)"); err != nil {
		t.Fatal(err)
	}
	const insert = "INSERT INTO t (name) VALUES (?)"
	for _, name := range []string{"a", "b", "c"} {
		if _, err := db.ExecContext(ctx, insert, name); err != nil {
			t.Fatal(err)
		}
	}
	const byID = "SELECT name FROM t WHERE id >= ? ORDER BY id"
	must := func(got []string, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	read := func(from int) ([]string, error) {
		r, err := db.QueryContext(ctx, byID, from)
		if err != nil {
			return nil, err
		}
		defer r.Close() //nolint:errcheck // Err reports read failures
		var out []string
		for r.Next() {
			var s string
			if err := r.Scan(&s); err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, r.Err()
	}

	t.Run("a cached query runs again with other arguments", func(t *testing.T) {
		if diff := cmp.Diff([]string{"a", "b", "c"}, must(read(1))); diff != "" {
			t.Error(diff)
		}
		if diff := cmp.Diff([]string{"c"}, must(read(3))); diff != "" {
			t.Error(diff)
		}
	})
	t.Run("a query runs while rows of the same text are open", func(t *testing.T) {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close() //nolint:errcheck // test cleanup
		outer, err := conn.QueryContext(ctx, byID, 1)
		if err != nil {
			t.Fatal(err)
		}
		var pairs []string
		for outer.Next() {
			var o string
			if err := outer.Scan(&o); err != nil {
				t.Fatal(err)
			}
			inner, err := conn.QueryContext(ctx, byID, 3)
			if err != nil {
				t.Fatal(err)
			}
			for inner.Next() {
				var i string
				if err := inner.Scan(&i); err != nil {
					t.Fatal(err)
				}
				pairs = append(pairs, o+i)
			}
			inner.Close() //nolint:errcheck // read to the end
		}
		if err := outer.Close(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"ac", "bc", "cc"}, pairs); diff != "" {
			t.Error(diff)
		}
	})
	t.Run("a cached write in a rolled back transaction is gone", func(t *testing.T) {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, insert, "d"); err != nil {
			t.Fatal(err)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"a", "b", "c"}, must(read(1))); diff != "" {
			t.Error(diff)
		}
	})
}
