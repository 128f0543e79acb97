package ledger_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
)

// A ledger is a SQLite file (or a PostgreSQL database) holding the
// backlog and every failure with the scope it was charged to; a failure
// by hand is charged as the caller's rules table says.
func Example() {
	dir, _ := os.MkdirTemp("", "ledger-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	l, err := ledger.Open(ctx, filepath.Join(dir, "night.db"), ledger.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close(ctx) //nolint:errcheck // an example
	at := time.Date(2025, 10, 21, 22, 0, 0, 0, time.UTC)
	score := 7.0
	t, _ := l.AddTask(ctx, ledger.NewTask{Title: "a chart of the tides", Score: &score}, at)
	f, _ := l.FailTaskCharged(ctx, t.ID, 0, "returned nothing", at, ledger.Charge{Scope: ledger.TaskScope, Rule: "by-hand"})
	fmt.Println(t.ID, t.Title, t.State)
	fmt.Println(f.Scope, f.Rule, f.Reason)
	// Output:
	// 1 a chart of the tides queued
	// task by-hand returned nothing
}
