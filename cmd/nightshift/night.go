package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/night"
	"github.com/nightshift-dev/nightshift/report"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/statedir"
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
	var pipeline, db, stateDir string
	var demo bool
	var otel ecoFlags // --otel, --otel-file, --otel-content
	cmd := &cobra.Command{
		Use:   "night --pipeline FILE [--db DB] | night --demo",
		Short: "Run the unattended pipeline through its nightly window",
		Long: `Night runs the pipeline file's roles (proposer, judge, builder) through the
window, charging every failure to the smallest thing known to be broken, and
records everything in the ledger. It ends when the window closes, when the
ceilings are reached, or early when no worker can do anything useful.
--demo runs a whole night on the scripted model with a simulated clock and
prints the morning report. The pipeline file is documented in docs/night.md.

Exit status: 0 the night ran to an end, 8 a system-scope failure stopped it,
2 a bad pipeline file or bad flags.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if demo {
				if pipeline != "" {
					return usagef("--demo runs its own pipeline: drop --pipeline, or drop --demo to run yours")
				}
				return runDemoNight(cmd, db, stateDir, &otel)
			}
			if pipeline == "" {
				return usagef("night needs --pipeline FILE (see docs/night.md), or --demo")
			}
			return runNight(cmd, pipeline, db, stateDir, &otel, clock.Real{}, nil)
		},
	}
	cmd.Flags().StringVar(&pipeline, "pipeline", "", "the pipeline file (YAML)")
	cmd.Flags().BoolVar(&demo, "demo", false, "run the demo night on the scripted model in seconds")
	dbFlag(cmd, &db)
	stateDirFlag(cmd, &stateDir)
	addOtelFlags(cmd, &otel)
	return cmd
}

// runNight runs one night and prints how it ended.
func runNight(cmd *cobra.Command, path, db, stateDir string, otel *ecoFlags, clk clock.Clock, before func(*ledger.Ledger) error) error {
	ctx := cmd.Context()
	p, err := night.LoadPipeline(path)
	if err != nil {
		return usageError(err)
	}
	// The builder's gate rules name tools it has (a misspelt one would
	// decide nothing), checked before anything opens.
	if err := p.ValidatePolicy(p.BuilderToolNames()); err != nil {
		return usageError(err)
	}
	// The keys the pipeline names are redacted from everything, as the
	// providers' usual ones are.
	red := redactorOf(ctx)
	for _, name := range p.KeyEnvs() {
		red.Add(os.Getenv(name))
	}
	// The builder's sandbox can be had; its warning is said once, here,
	// not once per builder step.
	sbc, _ := p.BuilderCommands()
	sbc.Dir = "."
	sb, err := sandbox.New(sbc)
	if err != nil {
		return usageError(fmt.Errorf("%s: roles.builder: %w", path, err))
	}
	for _, w := range sb.Warnings() {
		warnf(cmd.ErrOrStderr(), "%s", w)
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
	base, err := statedir.Base(stateDir)
	if err != nil {
		return usageError(err)
	}
	reg := newLimiters(stateDir, retry.LimiterConfig{Clock: clk})
	defer closeLimiters(reg, cmd.ErrOrStderr())
	limiters := night.Limiters(p, reg, os.Getenv)
	tr, stopTrace, err := otel.startTrace(ctx, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer stopTrace()
	sum, err := night.Run(ctx, night.Config{Pipeline: p, Ledger: l, Models: models, Limiters: limiters, Clock: clk,
		Events: red.Sink(event.NewText(cmd.ErrOrStderr())), Exit: exitFor, Redact: red, StateBase: base, Trace: tr})
	if errors.Is(err, night.ErrBadPipeline) {
		return usageError(err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "[night · %s %s: %s; builder steps finished %d]\n",
		sum.Night.Name, sum.Night.End, sum.Night.Reason, sum.Finished[ledger.Builder])
	if sum.Night.End == ledger.SystemStopped {
		// A system-scope failure stopped the night: not all was done.
		return exitWith(exitFor(agent.NotAllDone))
	}
	return nil
}

// runDemoNight writes the demo pipeline to a temporary folder, adds the
// task that fails the seed's way, runs the night on a simulated clock and
// prints the report.
func runDemoNight(cmd *cobra.Command, db, stateDir string, otel *ecoFlags) error {
	dir, err := os.MkdirTemp("", "nightshift-demo-")
	if err != nil {
		return err
	}
	// The demo's pipeline, workspaces, their state and (unless --db or
	// --state-dir names one) ledger and state folder are its own: nothing
	// of them is left behind.
	defer os.RemoveAll(dir)
	path, err := night.WriteDemo(dir)
	if err != nil {
		return err
	}
	if db == "" {
		db = dir + "/night.db"
	}
	if stateDir == "" {
		stateDir = filepath.Join(dir, "state")
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "[demo · pipeline %s, ledger %s, simulated clock from %s]\n", path, db, night.DemoStart.Format("2006-01-02 15:04"))
	clk := clock.NewFake(night.DemoStart)
	score := 9.0
	addBooklet := func(l *ledger.Ledger) error {
		_, err := l.AddTask(cmd.Context(), ledger.NewTask{Title: night.DemoTask, Score: &score}, clk.Now())
		return err
	}
	runErr := runNight(cmd, path, db, stateDir, otel, clk, addBooklet)
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
