package ledgertest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"
)

// FreshPostgres creates an empty database on the server at base and returns
// its URL; the database is dropped when the test ends.
func FreshPostgres(t testing.TB, base string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect %s: %v", "NIGHTSHIFT_TEST_PG", err)
	}
	var b [6]byte
	rand.Read(b[:]) //nolint:errcheck // never fails
	name := "ns_test_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") //nolint:errcheck // best effort
		conn.Close(ctx)                                                 //nolint:errcheck // best effort
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
