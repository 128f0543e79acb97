package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/batch"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/internal/proxy"
	"github.com/nightshift-dev/nightshift/internal/reliability"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm/openai"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// DefaultReliabilityRuns is --runs' default: K of pass^k.
const DefaultReliabilityRuns = 3

// reliabilityFlags are the flags of `nightshift eval reliability`: the
// endpoint's (as eval's), the fault schedule's (as sim proxy's) and its own.
// The tasks' run options come from the task file, as a batch's do.
type reliabilityFlags struct {
	modelSpec
	faults   faultFlags
	tasks    string
	runs     int
	parallel int
	work     string
	json     bool
}

func newEvalReliabilityCmd() *cobra.Command {
	var f reliabilityFlags
	cmd := &cobra.Command{
		Use:   "reliability --tasks FILE [--runs K] [--faults FILE | --fault KIND=RATE]... [--json]",
		Short: "Run each task K times, with and without faults, and report pass^k side by side",
		Long: `reliability runs every task of a tasks file (the format of nightshift batch,
docs/many-runs.md) K times (--runs) against the endpoint the flags name, as a
batch runs its tasks: each run in a fresh workspace, through the run
lifecycle, verified. With a fault schedule (--faults FILE, --fault KIND=RATE,
--seed N: the vocabulary of nightshift sim proxy, docs/scenarios.md), it runs
them K times more through the fault proxy, in process, in front of the same
endpoint. It reports side by side, per task and overall: the runs done,
unverified and failed, pass^K (every one of the K runs done), the retries,
the tokens and the cost, and the mix of outcomes: as a table, or with --json
as one JSON document (docs/eval.md).

The faults need an HTTP endpoint (--provider anthropic or openai, a real
provider, an OpenAI-compatible server, or a nightshift sim serve URL as
--base-url). Progress goes to stderr; the proxy's log of every request to
WORK/proxy.log. Exit status: 0 when the runs ran (the figures are the
result), 2 usage, 130 interrupted.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("eval reliability takes no arguments; give the tasks as --tasks FILE")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return runReliability(cmd, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.tasks, "tasks", "", "the tasks: a YAML list, a *.jsonl file, or a folder of task files (docs/many-runs.md)")
	fl.IntVar(&f.runs, "runs", DefaultReliabilityRuns, "K: run every task this many times under each condition")
	fl.IntVar(&f.parallel, "parallel", batch.DefaultParallel, "the most runs at once")
	fl.StringVar(&f.work, "work", "", "new or empty folder for the runs' workspaces and logs (default: a new temporary folder)")
	fl.BoolVar(&f.json, "json", false, "write the report as one JSON document instead of a table")
	fl.StringVar(&f.Provider, "provider", "", "anthropic|openai|scripted (default: from the keys set)")
	fl.StringVar(&f.ModelName, "model", "", "model name (env NIGHTSHIFT_MODEL; default "+defaultModels()+")")
	fl.StringVar(&f.BaseURL, "base-url", "", "the endpoint's base URL (env ANTHROPIC_BASE_URL / OPENAI_BASE_URL); with openai, any OpenAI-compatible server")
	fl.StringVar(&f.Scenario, "scenario", "", "scenario file for --provider scripted (no faults: it runs in process)")
	fl.BoolVar(&f.Stream, "stream", false, "use the provider's streaming API")
	f.faults.add(cmd)
	return cmd
}

// runReliability is `nightshift eval reliability`.
func runReliability(cmd *cobra.Command, f *reliabilityFlags) error {
	if f.tasks == "" {
		return usagef("eval reliability needs --tasks FILE: a YAML list of tasks, a *.jsonl file or a folder of task files (docs/many-runs.md)")
	}
	if f.runs < 1 {
		return usagef("--runs must be 1 or more, got %d", f.runs)
	}
	if f.parallel < 1 {
		return usagef("--parallel must be at least 1")
	}
	sched, err := f.faults.schedule(cmd)
	if err != nil {
		return err
	}
	if err := checkWorkDir(f.work); err != nil {
		return err
	}
	if _, err := os.Stat(f.tasks); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return usagef("--tasks %s: no such file or folder: check the path (the format is in docs/many-runs.md)", f.tasks)
		}
		return usagef("--tasks %s cannot be read (%v): name another file or folder", f.tasks, errors.Unwrap(err))
	}
	specs, err := taskfile.LoadList(f.tasks)
	if err != nil {
		return usageError(err)
	}
	endpoint, err := f.resolve(osGetenv)
	if err != nil {
		return err
	}
	var upstream string
	if sched != nil {
		if endpoint.provider == "scripted" {
			return usagef("the fault proxy stands in front of an HTTP endpoint, and --provider scripted runs in process: serve the scenario with nightshift sim serve --scenario FILE and give its URL as --base-url")
		}
		upstream = endpoint.target()
	}
	work := f.work
	if work == "" {
		work, err = os.MkdirTemp("", "nightshift-reliability-")
	} else {
		err = os.MkdirAll(work, 0o755)
	}
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()

	// Each condition's runner merges the specs with run's defaults and
	// checks them (batchRunner); the merge is the same for both.
	clean, cleanDone, err := reliabilityCondition(cmd, f, "clean", f.modelSpec, specs)
	if err != nil {
		return err
	}
	defer cleanDone()
	conds := []reliability.Condition{clean}
	if sched != nil {
		p, url, stop, err := startProxy(cmd.Context(), upstream, sched, filepath.Join(work, "proxy.log"))
		if err != nil {
			return err
		}
		defer stop()
		mf := f.modelSpec
		mf.BaseURL = url
		if endpoint.provider == "openai" && mf.MaxTokensField == "" {
			// The cap goes in the field the endpoint behind the proxy
			// takes, not the one a loopback server gets by default
			// (llm/openai's rule: OpenAI's own API wants
			// max_completion_tokens).
			mf.MaxTokensField = openai.FieldMaxTokens
			if u, err := neturl.Parse(upstream); err == nil && u.Hostname() == "api.openai.com" {
				mf.MaxTokensField = openai.FieldMaxCompletionTokens
			}
		}
		faulted, faultedDone, err := reliabilityCondition(cmd, f, "faults", mf, specs)
		if err != nil {
			return err
		}
		defer faultedDone()
		faulted.Faults, faulted.Injected, faulted.Requests = sched.String(), p.Injected, p.Requests
		conds = append(conds, faulted)
	}
	rep, err := reliability.Run(cmd.Context(), reliability.Config{
		Runs: f.runs, Parallel: f.parallel, WorkDir: work, Progress: stderr, Conditions: conds,
	}, specs)
	if err != nil {
		return usageError(err)
	}
	if f.json {
		err = rep.WriteJSON(dataOut(cmd))
	} else {
		err = rep.WriteText(humanOut(cmd))
	}
	if err != nil {
		return err
	}
	if cmd.Context().Err() != nil {
		// The table counts a run the signal stopped, or never started,
		// as failed: say so, so that nobody quotes its rates.
		stopped := 0
		for _, f := range rep.Overall {
			stopped += f.Outcomes[string(agent.Interrupted)]
		}
		fmt.Fprintf(stderr, "nightshift eval reliability: interrupted: %d %s stopped or never started, counted above as failed (outcome interrupted); the figures are not a measurement: run it again to measure\n",
			stopped, plural(stopped, "run"))
		return exitWith(exitFor(agent.Interrupted))
	}
	return nil
}

// reliabilityCondition builds a condition's runner: the batch's own
// (batchRunner, which merges specs with run's defaults and checks them),
// from run's defaults and the model flags mf, each run's retries counted
// from its events.
func reliabilityCondition(cmd *cobra.Command, f *reliabilityFlags, name string, mf modelSpec, specs []*taskfile.Spec) (reliability.Condition, func(), error) {
	bf := defaultBatchFlags()
	m, stall := &bf.spec.Model, runspec.Duration(mf.stall)
	*m = mf.Model
	bf.spec.Stall = &stall
	bf.parallel = f.parallel
	// Each run is measured on its own: the endpoint's circuit breaker,
	// shared by the condition's runs, would let one run's injected
	// faults decide how the next fares (issue 26), so it never opens
	// here.
	bf.spec.BreakerFailures = math.MaxInt32
	runner, done, err := batchRunner(cmd, bf, specs)
	if err != nil {
		return reliability.Condition{}, nil, err
	}
	retries := reliability.NewRetries()
	prepare := runner.Prepare
	runner.Prepare = func(spec *taskfile.Spec, dir string, cfg *lifecycle.Config) (func(*lifecycle.Result, error), error) {
		end, err := prepare(spec, dir, cfg)
		if err == nil {
			cfg.Events = event.Multi(cfg.Events, retries.Sink(dir))
		}
		return end, err
	}
	return reliability.Condition{Name: name, Run: runner.Run, Retries: retries.Count}, done, nil
}

// defaultBatchFlags are a batch's flags as `nightshift batch` has them
// when none is given: run's defaults.
func defaultBatchFlags() *batchFlags {
	var f batchFlags
	addRunFlags(&cobra.Command{}, &f.runFlags)
	f.parallel = batch.DefaultParallel
	return &f
}

// startProxy serves a fault proxy in front of upstream on a free loopback
// port, its log in logPath, until stop.
func startProxy(ctx context.Context, upstream string, sched *proxy.Schedule, logPath string) (p *proxy.Proxy, url string, stop func(), err error) {
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, "", nil, fmt.Errorf("the proxy's log: %w", err)
	}
	p, err = proxy.New(proxy.Config{Upstream: upstream, Schedule: sched, Log: log})
	if err != nil {
		log.Close()
		return nil, "", nil, usageError(err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		log.Close()
		return nil, "", nil, fmt.Errorf("the fault proxy: %w", err)
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // ErrServerClosed at stop
	return p, "http://" + ln.Addr().String(), func() {
		srv.Close()
		p.Wait() // every line logged before the log is closed
		log.Close()
	}, nil
}
