package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
)

// TestTaskFailChargesAsTheNightsRulesSay: `task fail` is charged as the
// rules table of the latest night says (its pipeline's rules over the
// default, recorded with its setup), not as the default table alone: a
// pipeline that charges a failure by hand to the worker makes task fail
// charge the worker (issue 24: every charge through the rules table).
func TestTaskFailChargesAsTheNightsRulesSay(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	if _, _, err := execute(t, newTaskCmd(), "add", "a chart of the tides", "--db", db); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	l, err := ledger.Open(ctx, db, ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 10, 21, 22, 0, 0, 0, time.UTC)
	n, err := l.StartNight(ctx, "2025-10-21", at, at.Add(8*time.Hour), at)
	if err != nil {
		t.Fatal(err)
	}
	setup := ledger.Setup{Roles: map[ledger.Role]ledger.RoleSetup{}, Charges: map[string]ledger.Charge{
		"by-hand": {Scope: ledger.WorkerScope, Rule: "by-hand", Why: "this pipeline blames the worker"},
	}}
	if err := l.SetSetup(ctx, n.ID, setup, at); err != nil {
		t.Fatal(err)
	}
	l.Close(ctx) //nolint:errcheck // reopened by the command
	out, _, err := execute(t, newTaskCmd(), "fail", "1", "--reason", "returned nothing", "--db", db)
	if err != nil || !strings.Contains(out, "scope worker") {
		t.Errorf("task fail: %q, %v; want the night's rules' scope, worker", out, err)
	}
}
