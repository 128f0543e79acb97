package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/night"
	"github.com/nightshift-dev/nightshift/report"
	"github.com/nightshift-dev/nightshift/retry"
)

// defaultDB is the ledger when neither --db nor $NIGHTSHIFT_DB names one.
const defaultDB = "nightshift.db"

// dbFlag adds --db to cmd.
func dbFlag(cmd *cobra.Command, db *string) {
	cmd.Flags().StringVar(db, "db", "", "the ledger: a SQLite file or a postgres:// URL (default $NIGHTSHIFT_DB, else "+defaultDB+")")
}

func resolveDB(db string) string { return cmp.Or(db, os.Getenv("NIGHTSHIFT_DB"), defaultDB) }

func openLedger(ctx context.Context, db string) (*ledger.Ledger, error) {
	l, err := ledger.Open(ctx, resolveDB(db), ledger.Config{Owner: os.Getenv("NIGHTSHIFT_OWNER")})
	if errors.Is(err, ledger.ErrBadOwner) {
		return nil, usageError(err)
	}
	return l, err
}

func newNightCmd() *cobra.Command {
	var pipeline, db, clockName, from string
	var demo bool
	var nights int
	cmd := &cobra.Command{
		Use:   "night --pipeline FILE [--db DB] [--clock sim --nights N [--from DATE]] | night --demo",
		Short: "Run the unattended pipeline through its nightly window",
		Long: `Night runs the pipeline file's roles (proposer, judge, builder) through the
window, charging every failure to the smallest thing known to be broken, and
records everything in the ledger. It ends when the window closes, when the
ceilings are reached, cut short when failure handling stops it, or out of
work when nothing is takeable. Several processes (NIGHTSHIFT_OWNER) may share
one night on PostgreSQL. Run again in the same window, it joins the night:
it continues the attempts a Ctrl-C interrupted, and resumes a night a
system-scope failure stopped.

--clock sim runs --nights N nights (default 1) on a simulated clock, from the
night whose window starts on --from DATE (default today): windows, parking
deadlines and the waits for a person take no time, so a month of nights runs
in seconds. Every model of the pipeline must be scripted.

--demo runs a whole night on the scripted model with a simulated clock and
prints the morning report. The pipeline file is documented in docs/night.md.

Exit status: 0 the night ran to an end, 8 a system-scope failure stopped it,
130 interrupted (SIGINT/SIGTERM: the running steps are recorded interrupted
and continued by the next night; a second signal exits at once), 2 a bad
pipeline file or bad flags.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if demo {
				return runDemoNight(cmd, db)
			}
			if pipeline == "" {
				return usagef("night needs --pipeline FILE (see docs/night.md), or --demo")
			}
			switch clockName {
			case "real":
				if cmd.Flags().Changed("nights") || from != "" {
					return usagef("--nights and --from are for the simulated clock: add --clock sim")
				}
				return runNight(cmd, pipeline, db, clock.Real{}, nil)
			case "sim":
				return runSimNights(cmd, pipeline, db, nights, from)
			}
			return usagef("--clock is %q: write real (the default) or sim", clockName)
		},
	}
	cmd.Flags().StringVar(&pipeline, "pipeline", "", "the pipeline file (YAML)")
	cmd.Flags().BoolVar(&demo, "demo", false, "run the demo night on the scripted model in seconds")
	cmd.Flags().StringVar(&clockName, "clock", "real", "real, or sim: simulated time (every model must be scripted)")
	cmd.Flags().IntVar(&nights, "nights", 1, "with --clock sim: how many nights to run")
	cmd.Flags().StringVar(&from, "from", "", "with --clock sim: the date (2006-01-02) the first night's window starts; default today")
	dbFlag(cmd, &db)
	return cmd
}

// runNight runs one night and prints how it ended.
func runNight(cmd *cobra.Command, path, db string, clk clock.Clock, before func(*ledger.Ledger) error) error {
	ctx := cmd.Context()
	p, err := night.LoadPipeline(path)
	if err != nil {
		return usageError(err)
	}
	models, err := night.BuildModels(p, clk, os.Getenv)
	if err != nil {
		return usageError(err)
	}
	l, err := openLedger(ctx, db)
	if err != nil {
		return err
	}
	defer l.Close(context.WithoutCancel(ctx)) //nolint:errcheck // the night is recorded by now
	if before != nil {
		if err := before(l); err != nil {
			return err
		}
	}
	sum, err := runOne(cmd, p, l, models, clk)
	if err != nil {
		return err
	}
	if sum.Night.End == ledger.SystemStopped {
		// A system-scope failure stopped the night: not all was done.
		return exitWith(exitFor(agent.NotAllDone))
	}
	return nil
}

// runOne runs one night of p on l and prints how it ended, or, when
// interrupted, what was left for the next night.
func runOne(cmd *cobra.Command, p *night.Pipeline, l *ledger.Ledger, models map[string]llm.Model, clk clock.Clock) (*night.Summary, error) {
	ctx := cmd.Context()
	limiters := night.Limiters(p, retry.NewLimiters(retry.LimiterConfig{Clock: clk}), os.Getenv)
	sum, err := night.Run(ctx, night.Config{Pipeline: p, Ledger: l, Models: models, Limiters: limiters, Clock: clk,
		Events: event.NewText(cmd.ErrOrStderr()), Exit: exitFor})
	if errors.Is(err, night.ErrBadPipeline) {
		return nil, usageError(err)
	}
	if err != nil && sum != nil && ctx.Err() != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "[night · %s interrupted: %s recorded interrupted; `nightshift night` again in the window continues the night]\n",
			sum.Night.Name, steps(sum.Interrupted))
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "[night · %s %s: %s; builder steps finished %d]\n",
		sum.Night.Name, sum.Night.End, sum.Night.Reason, sum.Finished[ledger.Builder])
	return sum, nil
}

// runSimNights runs n nights of the pipeline on a simulated clock, from
// the night whose window starts on from.
func runSimNights(cmd *cobra.Command, path, db string, n int, from string) error {
	if n < 1 {
		return usagef("--nights is %d: run at least one night", n)
	}
	p, err := night.LoadPipeline(path)
	if err != nil {
		return usageError(err)
	}
	for name, m := range p.Models {
		if m.Provider != "scripted" {
			return usagef("--clock sim runs only scripted models: models.%s is %s (a real model's calls take real time)", name, m.Provider)
		}
	}
	day := time.Now()
	if from != "" {
		if day, err = time.Parse("2006-01-02", from); err != nil {
			return usagef("--from is %q: write a date like 2025-10-21", from)
		}
	}
	clk := clock.NewFake(p.Window.StartOn(day))
	models, err := night.BuildModels(p, clk, os.Getenv)
	if err != nil {
		return usageError(err)
	}
	ctx := cmd.Context()
	l, err := openLedger(ctx, db)
	if err != nil {
		return err
	}
	defer l.Close(context.WithoutCancel(ctx)) //nolint:errcheck // the nights are recorded by now
	stopped := 0
	for range n {
		sum, err := runOne(cmd, p, l, models, clk)
		if err != nil {
			return err
		}
		if sum.Night.End == ledger.SystemStopped {
			stopped++
		}
		// The next night starts with the next window.
		if now := clk.Now(); now.Before(sum.Night.WindowEnd) {
			clk.Advance(sum.Night.WindowEnd.Sub(now))
		}
	}
	if stopped > 0 {
		return exitWith(exitFor(agent.NotAllDone))
	}
	return nil
}

// runDemoNight writes the demo pipeline to a temporary folder, adds the
// task that fails the seed's way, runs the night on a simulated clock and
// prints the report.
func runDemoNight(cmd *cobra.Command, db string) error {
	dir, err := os.MkdirTemp("", "nightshift-demo-")
	if err != nil {
		return err
	}
	path, err := night.WriteDemo(dir)
	if err != nil {
		return err
	}
	if db == "" {
		db = dir + "/night.db"
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "[demo · pipeline %s, ledger %s, simulated clock from %s]\n", path, db, night.DemoStart.Format("2006-01-02 15:04"))
	clk := clock.NewFake(night.DemoStart)
	score := 9.0
	addBooklet := func(l *ledger.Ledger) error {
		_, err := l.AddTask(cmd.Context(), ledger.NewTask{Title: night.DemoTask, Score: &score}, clk.Now())
		return err
	}
	runErr := runNight(cmd, path, db, clk, addBooklet)
	var ee *exitError
	if runErr != nil && !errors.As(runErr, &ee) {
		return runErr
	}
	l, err := openLedger(cmd.Context(), db)
	if err != nil {
		return err
	}
	defer l.Close(context.WithoutCancel(cmd.Context())) //nolint:errcheck // read only
	r, err := report.Build(cmd.Context(), l, clk.Now().Add(time.Minute))
	if err != nil {
		return err
	}
	if err := r.Text(cmd.OutOrStdout()); err != nil {
		return err
	}
	return runErr
}

// steps says "1 step" or "N steps".
func steps(n int) string {
	if n == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", n)
}
