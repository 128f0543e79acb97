package main

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/nightshift-dev/nightshift/ledger/ledgertest"
)

// dbPassword is the password the test puts in --db; the test server
// trusts its user and never asks for it.
const dbPassword = "hunter2-db-password-0123"

// Regression (issue 25): a password given in --db was printed, and the
// report's approve commands carried it: only $NIGHTSHIFT_DB's URL was
// learnt by the redactor, not the flag's. The password is in the URL's
// user part or in its query; nothing the commands print or write holds
// it.
func TestAPasswordInDBIsPrintedNowhere(t *testing.T) {
	base := os.Getenv("NIGHTSHIFT_TEST_PG")
	if base == "" {
		t.Skip("NIGHTSHIFT_TEST_PG is not set")
	}
	fresh, err := url.Parse(ledgertest.FreshPostgres(t, base))
	if err != nil {
		t.Fatal(err)
	}
	inUser := *fresh
	inUser.User = url.UserPassword(fresh.User.Username(), dbPassword)
	inQuery := *fresh
	q := inQuery.Query()
	q.Set("password", dbPassword)
	inQuery.RawQuery = q.Encode()

	// A parked task, as a night's builder leaves one.
	if res := runCLI(t, "task", "add", "--db", inUser.String(), "A task"); res.code != 0 {
		t.Fatalf("task add: exit %d: %s", res.code, res.stderr)
	}
	conn, err := pgx.Connect(context.Background(), fresh.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background()) //nolint:errcheck // test cleanup
	if _, err := conn.Exec(context.Background(), `INSERT INTO ns_parked(task_id, action, asked_at, deadline) VALUES (1, 'run_command {"cmd":"make"}', 0, 9999999999999)`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), `UPDATE ns_tasks SET state = 'parked' WHERE id = 1`); err != nil {
		t.Fatal(err)
	}

	html := filepath.Join(t.TempDir(), "report.html")
	for _, db := range []string{inUser.String(), inQuery.String(), "--db=" + inUser.String()} {
		for _, args := range [][]string{
			{"report"},
			{"report", "--json"},
			{"report", "--html", html},
			{"task", "list"},
			{"task", "approve", "99"},
		} {
			name := strings.Join(args, " ")
			if strings.HasPrefix(db, "--db=") {
				args = append(args, db)
			} else {
				args = append(args, "--db", db)
			}
			res := runCLI(t, args...)
			page, _ := os.ReadFile(html)
			for what, text := range map[string]string{"stdout": res.stdout, "stderr": res.stderr, "the page": string(page)} {
				if strings.Contains(text, dbPassword[:8]) {
					t.Errorf("%s (%s): %s holds the password:\n%s", name, db, what, text)
				}
			}
			if name == "report" && !strings.Contains(res.stdout, "nightshift task approve 1 --db") {
				t.Errorf("report: no approve command (exit %d):\n%s%s", res.code, res.stdout, res.stderr)
			}
		}
	}
}

// The URLs of a task file, a batch's task list and a pipeline file are
// learnt too: a base_url or an MCP server's URL with a password in it,
// or a task that names one.
func TestAPasswordInATaskFilesURLIsPrintedNowhere(t *testing.T) {
	dir := t.TempDir()
	const pw = "hunter2-task-file-pass"
	writeFiles(t, dir, map[string]string{
		"task.yaml": "task: \"Check that https://deploy:" + pw + "@ci.example/hook answers\"\n",
		"s.yaml":    "turns:\n  - text: It answers.\n",
	})
	events := filepath.Join(dir, "ev.jsonl")
	state := t.TempDir()
	res := runCLIEnv(t, []string{"NIGHTSHIFT_STATE_DIR=" + state}, "run", "--dir", dir, "--task-file", filepath.Join(dir, "task.yaml"),
		"--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--no-judge", "--events", events)
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	where := map[string]string{"stdout": res.stdout, "stderr": res.stderr, "--events": readFile(t, events)}
	filepath.WalkDir(state, func(p string, d os.DirEntry, err error) error { //nolint:errcheck // a walk error leaves less to look at
		if err == nil && !d.IsDir() {
			where[p] = readFile(t, p)
		}
		return nil
	})
	if !strings.Contains(where["--events"], "ci.example") {
		t.Fatalf("the events do not hold the task: the test looked in the wrong place\n%s", where["--events"])
	}
	for name, text := range where {
		if strings.Contains(text, pw[:8]) {
			t.Errorf("%s holds the password:\n%s", name, text)
		}
	}
}
