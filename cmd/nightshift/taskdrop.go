package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/ledger"
)

// newTaskDropCmd is `nightshift task drop ID`: a person gives a task up.
// It is never taken again, and counts as dropped, apart from failed (the
// morning report offers it for a task that failed on every model).
func newTaskDropCmd() *cobra.Command {
	var db, reason string
	cmd := &cobra.Command{
		Use:   "drop ID [--reason TEXT]",
		Short: "Give a task up: no night takes it again; it counts as dropped, not failed",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("task drop takes one task ID")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := taskID(args[0])
			if err != nil {
				return err
			}
			return withExistingLedger(cmd, db, func(ctx context.Context, l *ledger.Ledger) error {
				var night int64
				if n, err := l.OpenNight(ctx); err == nil {
					night = n.ID
				}
				d, err := l.DropTask(ctx, id, night, reason, time.Now())
				var nd *ledger.NotDroppableError
				switch {
				case errors.As(err, &nd) && nd.State == ledger.Claimed:
					return usagef("task %d is claimed: an attempt at it runs now, or waits to be continued by the next night; drop it once that attempt has ended (nightshift task list shows its state)", id)
				case errors.As(err, &nd) && nd.State == ledger.Dropped:
					return usagef("task %d is dropped already", id)
				case errors.As(err, &nd):
					return usagef("task %d is %s: there is nothing left to give up", id, nd.State)
				case err != nil:
					return notFound(ctx, l, id, "", err)
				}
				t, _ := l.Task(ctx, id)
				fmt.Fprintf(humanOut(cmd), "task %d %q dropped (it was %s): no night takes it again\n", id, gate.Escape(t.Title), d.Was)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why it is given up, in words (kept with the drop)")
	dbFlag(cmd, &db)
	return cmd
}
