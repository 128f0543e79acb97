package main

// Regression tests for --db values that named no ledger or a server that
// could not be used, each named after the bug.

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
)

func TestASQLiteSchemeWithoutAPathIsAUsageErrorNotNoLedgerAtBlank(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, db := range []string{"sqlite:", "sqlite://"} {
		for _, args := range [][]string{
			{"report", "--db", db},
			{"task", "list", "--db", db},
			{"task", "add", "--db", db, "A task"},
		} {
			t.Run(db+" "+strings.Join(args[:2], " "), func(t *testing.T) {
				res := runCLI(t, args...)
				if res.code != 2 || !strings.Contains(res.stderr, "has no path after the scheme") || !strings.Contains(res.stderr, "--db sqlite:nightshift.db") {
					t.Errorf("exit %d, stderr %q; want 2, no path after the scheme and an example", res.code, res.stderr)
				}
				if ents, _ := os.ReadDir("."); len(ents) > 0 {
					t.Errorf("%s was created", ents[0].Name())
				}
			})
		}
	}
}

// closedPort is a loopback port nothing listens on: a listener's, closed.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestAnUnreachablePostgreSQLLedgerNamesTheServerNotThePassword(t *testing.T) {
	addr := closedPort(t)
	db := fmt.Sprintf("postgres://nightshift:hunter2@%s/ledger?sslmode=disable", addr)
	for _, args := range [][]string{
		{"report", "--db", db},
		{"task", "list", "--db", db},
		{"task", "add", "--db", db, "A task"},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			res := runCLI(t, args...)
			want := "the ledger's PostgreSQL server " + addr + " (--db or $NIGHTSHIFT_DB) cannot be reached"
			if res.code != 1 || !strings.Contains(res.stderr, want) || !strings.Contains(res.stderr, "check that the server is running") {
				t.Errorf("exit %d, stderr %q; want 1 and %q with what to check", res.code, res.stderr, want)
			}
			if strings.Contains(res.stderr, "hunter2") || strings.Contains(res.stderr, "dial tcp") {
				t.Errorf("stderr %q echoes the password or the driver's words", res.stderr)
			}
		})
	}
}

func TestAPostgreSQLLedgerWithoutItsDatabaseSaysCreateIt(t *testing.T) {
	base := os.Getenv("NIGHTSHIFT_TEST_PG")
	if base == "" {
		t.Skip("NIGHTSHIFT_TEST_PG is not set")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/nightshift_no_such_database"
	res := runCLI(t, "report", "--db", u.String())
	if res.code != 2 || !strings.Contains(res.stderr, "has no such database") || !strings.Contains(res.stderr, "createdb") {
		t.Errorf("exit %d, stderr %q; want 2, no such database and createdb", res.code, res.stderr)
	}
}

func TestALedgerPathSQLiteCannotOpenIsAUsageErrorNotSQLitesWords(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFiles(t, dir, map[string]string{"afile": "x"})
	long := strings.Repeat("x", 300) + ".db"
	for _, tt := range []struct{ name, db, want string }{
		{"a folder that does not exist", "nodir/x.db", "the folder nodir does not exist: create it, or name a file in another"},
		{"a file in the way", "afile/x.db", "ledger afile/x.db (--db or $NIGHTSHIFT_DB): not a directory: name another path"},
		{"a name too long", long, "file name too long: name another path"},
	} {
		for _, args := range [][]string{{"task", "add", "--db", tt.db, "A task"}, {"report", "--db", tt.db}} {
			t.Run(tt.name+" "+args[0], func(t *testing.T) {
				res := runCLI(t, args...)
				if res.code != 2 || !strings.Contains(res.stderr, tt.want) || strings.Contains(res.stderr, "(14)") {
					t.Errorf("exit %d, stderr %q; want 2 and %q", res.code, res.stderr, tt.want)
				}
			})
		}
	}
}

func TestAStateDirectoryWithANameTooLongIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": "turns: [{text: Done.}]\n", "work/a.txt": "a"})
	res := runCLI(t, "run", "--dir", dir+"/work", "--state-dir", dir+"/"+strings.Repeat("x", 300),
		"--provider", "scripted", "--scenario", dir+"/s.yaml", "--no-judge", "Anything")
	if res.code != 2 || !strings.Contains(res.stderr, "(--state-dir): file name too long: point --state-dir") || strings.Contains(res.stderr, "statedir:") {
		t.Errorf("exit %d, stderr %q; want 2 naming --state-dir", res.code, res.stderr)
	}
}
