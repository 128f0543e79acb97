package main

import (
	"bytes"
	"context"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/report"
)

func newReportCmd() *cobra.Command {
	var db, html string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "report [--db DB] [--json | --html FILE]",
		Short: "The morning report: how each night ended, and why",
		Long: `Report reads the ledger and says, per night, the window, when and how it ended,
the steps each role finished, the tasks done, failed, skipped and parked, the
failures by scope with their reasons, the FAILs by check, and the system stops
a night was resumed after; across nights, builder steps finished per night and
the nights that ended early, kept apart: cut short by failure handling, or out
of work (the JSON's cut_short and out_of_work; ended_early is their sum).
Parked tasks past their deadline come first. --html writes a page with charts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON && html != "" {
				return usagef("choose one of --json and --html")
			}
			return withExistingLedger(cmd, db, func(ctx context.Context, l *ledger.Ledger) error {
				r, err := report.Build(ctx, l, time.Now())
				if err != nil {
					return err
				}
				switch {
				case asJSON:
					return r.JSON(cmd.OutOrStdout())
				case html != "":
					// The page is made whole, then redacted, so that no
					// secret is split between two writes.
					var page bytes.Buffer
					if err := r.HTML(&page); err != nil {
						return err
					}
					return os.WriteFile(html, redactorOf(ctx).Bytes(page.Bytes()), 0o644)
				}
				return r.Text(cmd.OutOrStdout())
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&html, "html", "", "write the report as an HTML page with charts to FILE")
	dbFlag(cmd, &db)
	return cmd
}
