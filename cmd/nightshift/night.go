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
	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/internal/nightdemo"
	"github.com/nightshift-dev/nightshift/internal/ownfiles"
	"github.com/nightshift-dev/nightshift/internal/report"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/night"
	"github.com/nightshift-dev/nightshift/redact"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/statedir"
	"github.com/nightshift-dev/nightshift/tracing"
)

// defaultDB is the ledger when neither --db nor $NIGHTSHIFT_DB names one.
const defaultDB = "nightshift.db"

// dbFlag adds --db to cmd.
func dbFlag(cmd *cobra.Command, db *string) {
	cmd.Flags().StringVar(db, "db", "", "the ledger: a SQLite file or a postgres:// URL (default $NIGHTSHIFT_DB, else "+defaultDB+")")
}

func resolveDB(db string) string { return cmp.Or(db, os.Getenv("NIGHTSHIFT_DB"), defaultDB) }

// openLedger opens the ledger db names as $NIGHTSHIFT_OWNER, with how
// this process works a night (cfg's Concurrency and Lease; zero: the
// defaults). Every text it writes passes through the process's redactor
// first, so the ledger never stores a credential's value.
func openLedger(ctx context.Context, db string, cfg ledger.Config) (*ledger.Ledger, error) {
	cfg.Owner = os.Getenv("NIGHTSHIFT_OWNER")
	cfg.Redact = redactorOf(ctx).String
	if err := checkLedgerFile(resolveDB(db)); err != nil {
		return nil, err
	}
	l, err := ledger.Open(ctx, resolveDB(db), cfg)
	switch {
	case err == nil:
		return l, nil
	case errors.Is(err, ledger.ErrBadOwner):
		return nil, usageError(err)
	case ledger.IsPostgres(resolveDB(db)):
		return nil, ledgerOpenError(resolveDB(db), err)
	}
	return l, err
}

func newNightCmd() *cobra.Command {
	var pipeline, db, stateDir, clockName, from, html string
	var demo bool
	var nights int
	var work ledger.Config     // --concurrency (--workers), --lease
	var otel runspec.Ecosystem // --otel, --otel-file, --otel-content
	cmd := &cobra.Command{
		Use:   "night --pipeline FILE [--db DB] [--concurrency N] [--lease D] [--clock sim --nights N [--from DATE]] [--html FILE] | night --demo",
		Short: "Run the unattended pipeline through its nightly window",
		Long: `Night runs the pipeline file's roles (proposer, judge, builder) through the
window, charging every failure to the smallest thing known to be broken, and
records everything in the ledger. It ends when the window closes, when the
ceilings are reached, cut short when failure handling stops it, or out of
work when nothing is takeable. Several processes (NIGHTSHIFT_OWNER) may share
one night on PostgreSQL. Run again in the same window, it joins the night:
it continues the attempts a Ctrl-C interrupted, and resumes a night a
system-scope failure stopped.

--concurrency N runs N steps at once in this process (default 1), each of
its own task (--workers, its old name, is an alias until the next release:
a worker is a role's model, the failure scope); --lease D is how long a step may run before River takes it back, and how
long an interrupted step waits for its owner before another process retries
it (default 1h).

--clock sim runs --nights N nights (default 1) on a simulated clock, from the
night whose window starts on --from DATE (default today): windows, parking
deadlines and the waits for a person take no time, so a month of nights runs
in seconds. Every model of the pipeline must be scripted.

--demo runs a whole night on the scripted model with a simulated clock,
prints the morning report and writes it as a page (--html FILE, default
nightshift-demo.html in a new private folder under the temporary folder). The pipeline file is
documented in docs/night.md.

On a terminal a status line shows the step being worked on (role and
worker, task, step k of the role's ceiling, tokens, time left in the
window), with failures, notes and the night's own lines above it; elsewhere
each event is a line. --html FILE writes the morning report's page once the
nights are over.

Exit status: 0 the night ran to an end, 8 a system-scope failure stopped it,
130 interrupted (SIGINT/SIGTERM: the running steps are recorded interrupted
and continued by the next night; a second signal exits at once), 2 a bad
pipeline file or bad flags.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("workers") {
				if cmd.Flags().Changed("concurrency") {
					return usagef("--workers is --concurrency's old name: give --concurrency alone")
				}
				fmt.Fprintln(cmd.ErrOrStderr(), "nightshift: --workers is deprecated: use --concurrency (--workers goes in the next release)")
			}
			if err := checkOutFile("html", html); err != nil {
				return err
			}
			if html != "" {
				ownfiles.Add(html) // written by nightshift: no run's change
			}
			if err := checkOutFileAs("otel-file", otel.OtelFile, "traces.jsonl"); err != nil {
				return err
			}
			if demo {
				if pipeline != "" {
					return usagef("--demo runs its own pipeline: drop --pipeline, or drop --demo to run yours")
				}
				// The demo's night is its own: one night on a simulated
				// clock, one step at a time. A flag that would change it
				// was ignored without a word.
				for _, n := range []string{"clock", "nights", "from", "concurrency", "workers", "lease"} {
					if cmd.Flags().Changed(n) {
						return usagef("--demo plays one fixed night: drop --%s, or run your own pipeline with --pipeline FILE", n)
					}
				}
				return runDemoNight(cmd, db, stateDir, html, &otel)
			}
			if pipeline == "" {
				return usagef("night needs --pipeline FILE (see docs/night.md), or --demo")
			}
			if err := checkInputFile("--pipeline", pipeline, "the format is in docs/night.md"); err != nil {
				return err
			}
			if work.Concurrency < 1 {
				return usagef("--%s is %d: run at least one step at once", concurrencyFlag(cmd), work.Concurrency)
			}
			if work.Lease <= 0 {
				return usagef("--lease is %s: give a step some time, e.g. --lease 1h", work.Lease)
			}
			switch clockName {
			case "real":
				if cmd.Flags().Changed("nights") || from != "" {
					return usagef("--nights and --from are for the simulated clock: add --clock sim")
				}
				return runNight(cmd, pipeline, db, stateDir, html, &otel, work, clock.Real{}, nil)
			case "sim":
				return runSimNights(cmd, pipeline, db, stateDir, html, &otel, work, nights, from)
			}
			return usagef("--clock is %q: write real (the default) or sim", clockName)
		},
	}
	cmd.Flags().StringVar(&pipeline, "pipeline", "", "the pipeline file (YAML)")
	cmd.Flags().BoolVar(&demo, "demo", false, "run the demo night on the scripted model in seconds")
	cmd.Flags().StringVar(&clockName, "clock", "real", "real, or sim: simulated time (every model must be scripted)")
	cmd.Flags().IntVar(&nights, "nights", 1, "with --clock sim: how many nights to run")
	cmd.Flags().StringVar(&from, "from", "", "with --clock sim: the date (2006-01-02) the first night's window starts; default today")
	cmd.Flags().StringVar(&html, "html", "", "write the morning report as a page to FILE once the nights are over")
	cmd.Flags().IntVar(&work.Concurrency, "concurrency", 1, "how many steps this process runs at once (and step chains it brings to the night)")
	// --concurrency's old name, for one release (hidden; a line on stderr
	// says so when given).
	cmd.Flags().IntVar(&work.Concurrency, "workers", 1, "deprecated: use --concurrency")
	cmd.Flags().MarkHidden("workers") //nolint:errcheck // the flag exists: made above
	cmd.Flags().DurationVar(&work.Lease, "lease", ledger.DefaultLease, "how long a step may run before River takes it back, and an interrupted step waits for its owner")
	dbFlag(cmd, &db)
	stateDirFlag(cmd, &stateDir)
	addOtelFlags(cmd, &otel)
	return cmd
}

// nightSetup is what the nights of one `nightshift night` share: the
// pipeline, checked, its models, the ledger, the limiters and the trace.
type nightSetup struct {
	p        *night.Pipeline
	red      *redact.Redactor
	models   map[string]llm.Model
	l        *ledger.Ledger
	base     string
	limiters map[string]*retry.Limiter
	breakers map[string]*breaker.Breaker
	trace    *tracing.Tracer
	clk      clock.Clock
	status   *nightStatus
	closers  []func()
}

func (s *nightSetup) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
}

// setUpNights loads and checks the pipeline and opens what its nights
// need, on clk, with the ledger working as work says (Concurrency, Lease);
// before runs on the ledger once it is open.
func setUpNights(cmd *cobra.Command, path, db, stateDir string, otel *runspec.Ecosystem, work ledger.Config, clk clock.Clock, before func(*ledger.Ledger) error) (*nightSetup, error) {
	ctx := cmd.Context()
	live := false
	if fh, ok := redact.Underlying(cmd.ErrOrStderr()).(*os.File); ok {
		live = gate.IsTerminal(fh)
	}
	s := &nightSetup{clk: clk, status: newNightStatus(cmd.ErrOrStderr(), live)}
	learnFiles(cmd.Context(), path)
	p, err := night.LoadPipeline(path)
	if err != nil {
		return s, usageError(err)
	}
	s.p = p
	// The builder's gate rules name tools it has (a misspelt one would
	// decide nothing), checked before anything opens.
	if err := p.ValidatePolicy(p.BuilderToolNames()); err != nil {
		return s, usageError(err)
	}
	// The keys the pipeline names are redacted from everything, as the
	// providers' usual ones are.
	s.red = redactorOf(ctx)
	for _, name := range p.KeyEnvs() {
		s.red.Add(os.Getenv(name))
	}
	// The builder's sandbox can be had; its warning is said once, here,
	// not once per builder step.
	sbc, _ := p.BuilderCommands()
	sbc.Dir = "."
	sb, err := checkSandbox(sbc, stateDir)
	if err != nil {
		return s, usageError(fmt.Errorf("%s: roles.builder: %w", path, err))
	}
	for _, w := range sb.Warnings() {
		warnf(cmd.ErrOrStderr(), "%s", w)
	}
	if s.models, err = night.BuildModels(p, clk, os.Getenv); err != nil {
		return s, usageError(err)
	}
	if s.l, err = openLedger(ctx, db, work); err != nil {
		return s, err
	}
	s.closers = append(s.closers, func() { s.l.Close(context.WithoutCancel(ctx)) }) //nolint:errcheck // the nights are recorded by now
	if before != nil {
		if err := before(s.l); err != nil {
			return s, err
		}
	}
	if s.base, err = statedir.Base(stateDir); err != nil {
		return s, usageError(err)
	}
	reg := newLimiters(stateDir, retry.LimiterConfig{Clock: clk})
	s.closers = append(s.closers, func() { closeLimiters(reg, cmd.ErrOrStderr()) })
	s.limiters = night.Limiters(p, reg, os.Getenv)
	// The breakers are shared with the machine's other processes, as the
	// limiters are, except on a simulated clock, whose times mean nothing
	// to another process.
	brs := breakersFor(stateDir)
	if _, isReal := clk.(clock.Real); clk != nil && !isReal {
		brs = breaker.NewBreakers("", nil)
	}
	s.breakers = night.Breakers(p, brs, clk, os.Getenv)
	tr, stopTrace, err := startTrace(ctx, otel, cmd.ErrOrStderr())
	if err != nil {
		return s, err
	}
	s.trace = tr
	s.closers = append(s.closers, stopTrace)
	return s, nil
}

// runOne runs one night and prints how it ended, or, when interrupted,
// what is left for the next night.
func (s *nightSetup) runOne(cmd *cobra.Command) (*night.Summary, error) {
	ctx := cmd.Context()
	sum, err := night.Run(ctx, night.Config{Pipeline: s.p, Ledger: s.l, Models: s.models, Limiters: s.limiters, Breakers: s.breakers, Clock: s.clk,
		Events: s.red.Sink(s.status), Exit: exitFor, Redact: s.red, StateBase: s.base, Trace: s.trace})
	s.status.end()
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
	sp := sum.Night.Spend
	fmt.Fprintf(cmd.ErrOrStderr(), "[night · %s %s: %s; builder steps finished %d; %d tokens, cost %s]\n",
		sum.Night.Name, sum.Night.End, esc(sum.Night.Reason), sum.Finished[ledger.Builder], sp.Tokens, sp.CostText())
	return sum, nil
}

// runNight runs one night, prints how it ended and, with html, writes
// the morning report's page.
func runNight(cmd *cobra.Command, path, db, stateDir, html string, otel *runspec.Ecosystem, work ledger.Config, clk clock.Clock, before func(*ledger.Ledger) error) error {
	s, err := setUpNights(cmd, path, db, stateDir, otel, work, clk, before)
	defer s.close()
	if err != nil {
		return err
	}
	sum, err := s.runOne(cmd)
	if err != nil {
		return err
	}
	if err := s.page(cmd, db, html, 1); err != nil {
		return err
	}
	if sum.Night.End == ledger.SystemStopped {
		// A system-scope failure stopped the night: not all was done.
		return exitWith(exitFor(agent.NotAllDone))
	}
	return nil
}

// runSimNights runs n nights of the pipeline on a simulated clock, from
// the night whose window starts on from.
func runSimNights(cmd *cobra.Command, path, db, stateDir, html string, otel *runspec.Ecosystem, work ledger.Config, n int, from string) error {
	if n < 1 {
		return usagef("--nights is %d: run at least one night", n)
	}
	learnFiles(cmd.Context(), path)
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
	s, err := setUpNights(cmd, path, db, stateDir, otel, work, clk, nil)
	defer s.close()
	if err != nil {
		return err
	}
	stopped := 0
	for range n {
		sum, err := s.runOne(cmd)
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
	if err := s.page(cmd, db, html, n); err != nil {
		return err
	}
	if stopped > 0 {
		return exitWith(exitFor(agent.NotAllDone))
	}
	return nil
}

// steps says "1 step" or "N steps".
func steps(n int) string {
	if n == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", n)
}

// page writes the morning report's page to html, when set, covering the
// nights just run (n) or the report's default, whichever is more, and
// says where it is.
func (s *nightSetup) page(cmd *cobra.Command, db, html string, n int) error {
	if html == "" {
		return nil
	}
	r, err := report.Build(cmd.Context(), s.l, s.clk.Now(), report.Config{Nights: max(n, report.DefaultNights), DB: db})
	if err != nil {
		return err
	}
	if err := writeReportPage(cmd.Context(), r, html); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "[night · the morning report: %s]\n", html)
	return nil
}

// demoPage makes a new private folder under the temporary folder and
// returns the path of the demo's page in it, where the demo writes the
// report's page unless --html says. A fixed path in the shared temporary
// folder (it was /tmp/nightshift-demo.html) is one another user can plant
// a link at, and the demo overwrote whatever the link named (issue 23).
func demoPage() (string, error) {
	dir, err := os.MkdirTemp("", "nightshift-demo-page-")
	if err != nil {
		return "", fmt.Errorf("a folder for the demo's page: %w (set TMPDIR to a folder you can write, or give --html FILE)", err)
	}
	return filepath.Join(dir, "nightshift-demo.html"), nil
}

// runDemoNight writes the demo pipeline to a temporary folder, adds the
// task that fails the seed's way, runs the night on a simulated clock,
// prints the report and writes its page (html, default demoPage()).
func runDemoNight(cmd *cobra.Command, db, stateDir, html string, otel *runspec.Ecosystem) error {
	dir, err := os.MkdirTemp("", "nightshift-demo-")
	if err != nil {
		return err
	}
	// The demo's pipeline, workspaces, their state and (unless --db or
	// --state-dir names one) ledger and state folder are its own: nothing
	// of them is left behind but the report's page.
	defer os.RemoveAll(dir)
	path, err := nightdemo.Write(dir)
	if err != nil {
		return err
	}
	if db == "" {
		db = dir + "/night.db"
	}
	if stateDir == "" {
		stateDir = filepath.Join(dir, "state")
	}
	if html == "" {
		if html, err = demoPage(); err != nil {
			return err
		}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "[demo · pipeline %s, ledger %s, simulated clock from %s]\n", path, db, nightdemo.Start.Format("2006-01-02 15:04"))
	clk := clock.NewFake(nightdemo.Start)
	score := 9.0
	addBooklet := func(l *ledger.Ledger) error {
		_, err := l.AddTask(cmd.Context(), ledger.NewTask{Title: nightdemo.Task, Score: &score}, clk.Now())
		return err
	}
	runErr := runNight(cmd, path, db, stateDir, "", otel, ledger.Config{}, clk, addBooklet)
	var ee *exitError
	if runErr != nil && !errors.As(runErr, &ee) {
		return runErr
	}
	l, err := openLedger(cmd.Context(), db, ledger.Config{})
	if err != nil {
		return err
	}
	defer l.Close(context.WithoutCancel(cmd.Context())) //nolint:errcheck // read only
	r, err := report.Build(cmd.Context(), l, clk.Now().Add(time.Minute), report.Config{DB: db})
	if err != nil {
		return err
	}
	if err := reportTo(cmd.Context(), r, humanOut(cmd), html); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "[demo · the morning report as a page: %s (open it in a browser)]\n", html)
	return runErr
}

// concurrencyFlag is the name the person gave --concurrency by: its old
// name, --workers, when that was the one given.
func concurrencyFlag(cmd *cobra.Command) string {
	if cmd.Flags().Changed("workers") {
		return "workers"
	}
	return "concurrency"
}
