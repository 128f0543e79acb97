package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/batch"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/internal/ownfiles"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/redact"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// batchFlags are the flags of `nightshift batch`: run's flags (the model,
// the limits as defaults, the retry and rate-limit settings) and its own.
type batchFlags struct {
	runFlags
	tasks    string
	parallel int
	work     string
	// lims are the batch's limiters, once batchRunner made them.
	lims *retry.Limiters
}

// perTaskFlags are run's flags that name one task's own things; in a
// batch each task's spec says them.
var perTaskFlags = []string{"dir", "task-file", "output-schema", "events"}

func newBatchCmd() *cobra.Command {
	var f batchFlags
	cmd := &cobra.Command{
		Use:   "batch --tasks FILE [--parallel N] [flags]",
		Short: "Run many tasks at once, paced under one shared rate limiter",
		Long: `Batch runs every task of a tasks file concurrently, at most --parallel at once,
each in a fresh workspace (a copy of the task's dir, or an empty folder) with
its own verifier, and all of their model calls through one rate limiter per
provider credential, which learns the provider's limit from its rate-limit
headers and 429s (or --rpm/--tpm by hand).

The tasks file is a YAML list of tasks (or {tasks: [...]}), JSON lines
(*.jsonl), or a folder of task files; each task has the fields of a
--task-file (docs/many-runs.md). Run's limit flags are the defaults for tasks
that do not set them; --check and --approve add to every task's own.

Progress goes to stderr: a live bar on a terminal, one line per finished task
otherwise. The summary table goes to stdout. Each task's event lines are in
its log beside its workspace (WORK/007-name.log).

An interrupted batch goes on with nightshift batch --resume --tasks FILE
--work DIR (the same two): its paused tasks resume from their checkpoints,
its never-started tasks start with the flags the batch recorded, and a task
that had ended is not run again.

Exit status: 0 every task ended done, 8 some did not, 2 usage, 130
interrupted.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && cmd.Flags().Changed("resume") {
				// `--resume RUN`: run's flag, given a run ID.
				return usagef("--resume goes on with one paused run: nightshift run --resume RUN (%s); batch --resume, with no value, goes on with the interrupted batch in --work", args[0])
			}
			if len(args) > 0 {
				return usagef("batch takes no arguments; give the tasks as --tasks FILE")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return runBatch(cmd, &f) },
	}
	addRunFlags(cmd, &f.runFlags)
	for _, n := range perTaskFlags {
		cmd.Flags().MarkHidden(n) //nolint:errcheck // the flag exists: addRunFlags made it
	}
	// batch's --resume takes no run: it goes on with the batch in --work.
	resume := cmd.Flags().Lookup("resume")
	resume.NoOptDefVal, resume.Usage = batchResume, "go on with the interrupted batch of --tasks in --work: its paused and never-started tasks (only budget and time flags may be given with it)"
	fl := cmd.Flags()
	fl.StringVar(&f.tasks, "tasks", "", "the tasks: a YAML list, a *.jsonl file, or a folder of task files")
	fl.IntVar(&f.parallel, "parallel", batch.DefaultParallel, "the most tasks running at once")
	fl.StringVar(&f.work, "work", "", "empty folder for the tasks' workspaces and logs (default: a new temporary folder)")
	return cmd
}

// runBatch is `nightshift batch`.
func runBatch(cmd *cobra.Command, f *batchFlags) error {
	for _, n := range perTaskFlags {
		if cmd.Flags().Changed(n) {
			return usagef("--%s is set per task in a batch: put it in the tasks file (docs/many-runs.md)", n)
		}
	}
	resuming := cmd.Flags().Changed("resume")
	if resuming {
		if err := checkBatchResume(cmd, f); err != nil {
			return err
		}
		// The flags the batch ran with, as it recorded them: its
		// never-started tasks start with them.
		if err := replayBatch(cmd.Flags(), f.work); err != nil {
			return err
		}
	}
	if err := checkRunFlags(&f.runFlags, cmd.Flags().Changed); err != nil {
		return err
	}
	if f.spec.FallbackOn != "" && f.spec.FallbackModel == "" {
		return usagef("--fallback-on says when to use the fallback model: name one with --fallback-model")
	}
	if f.spec.MaxVerifyRounds < 0 || *f.spec.LoopLimit < -1 {
		return usagef("--max-verify-rounds must not be negative, and --loop-limit is N repeats, 0 for the default or -1 for off")
	}
	if f.tasks == "" {
		return usagef("batch needs --tasks FILE: a YAML list of tasks, a *.jsonl file or a folder of task files (docs/many-runs.md)")
	}
	if f.parallel < 1 {
		return usagef("--parallel must be at least 1")
	}
	if resuming {
		if fi, err := os.Stat(f.work); err != nil || !fi.IsDir() {
			return usagef("batch --resume: --work %s is not the folder of an interrupted batch: give the --work it ran with", f.work)
		}
	} else if err := checkWorkDir(f.work); err != nil {
		return err
	}
	if _, err := os.Stat(f.tasks); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return usagef("--tasks %s: no such file or folder: check the path (the format is in docs/many-runs.md)", f.tasks)
		}
		return usagef("--tasks %s cannot be read (%v): name another file or folder", f.tasks, errors.Unwrap(err))
	}
	learnFiles(cmd.Context(), f.tasks)
	specs, err := taskfile.LoadList(f.tasks)
	if err != nil {
		return usageError(err)
	}
	runner, done, err := batchRunner(cmd, f, specs)
	if err != nil {
		return err
	}
	defer done()
	stderr := cmd.ErrOrStderr()
	live := false
	if fh, ok := redact.Underlying(stderr).(*os.File); ok {
		live = gate.IsTerminal(fh)
	}
	bc := batch.Config{
		Parallel: f.parallel,
		WorkDir:  f.work,
		Run:      runner.Run,
		Progress: stderr,
		Live:     live,
	}
	bc.Started = func(work string) error { return recordBatch(cmd.Flags(), work) }
	if resuming {
		bc.Continue = func(ctx context.Context, spec *taskfile.Spec, dir string) (*agent.Result, bool, bool) {
			return continueBatchTask(ctx, cmd.Flags().Changed, f, dir, f.lims)
		}
	}
	sum, err := batch.Run(cmd.Context(), bc, specs)
	if err != nil {
		return usageError(err)
	}
	if err := sum.WriteTable(humanOut(cmd)); err != nil {
		return err
	}
	writePaused(humanOut(cmd), sum, f.stateDir)
	if cmd.Context().Err() != nil {
		writeBatchResume(humanOut(cmd), sum, f.tasks, f.stateDir)
		return exitWith(exitFor(agent.Interrupted))
	}
	return exitWith(exitFor(sum.Outcome()))
}

// batchRunner builds what runs a batch's tasks: the flags' config for
// every task, each spec merged with the flags and checked before anything
// runs (specs[i] becomes its merged copy), and the runner that gives each
// task its log and its judge. done ends the trace and the limiters.
// `nightshift batch` and `nightshift eval reliability` run their tasks
// through it.
func batchRunner(cmd *cobra.Command, f *batchFlags, specs []*taskfile.Spec) (runner *batch.Agent, done func(), err error) {
	limiters := limitersFor(f.stateDir, &f.spec)
	f.lims = limiters // batch --resume paces its resumed tasks under them too
	// Every task starts from the flags' config: the model and its
	// limiter, the retry policy, the judge, --keep and the exit table.
	// Its spec, the flags laid over it (batchSpec), adds the rest
	// (batch.TaskConfig). The flags' lists (checks, gate rules,
	// variables) reach every task through its spec alone: in the base
	// too, they would count twice.
	flagSpec := &taskfile.Spec{BaseDir: ".", Spec: f.flagSpec()}
	flagSpec.Checks, flagSpec.Approve, flagSpec.Env = nil, nil, nil
	// The endpoints' breakers are the process's, one state for every
	// task; each task's calls apply its own breaker: key
	// (prepareBatchTask).
	base, err := runConfig(&f.runFlags, flagSpec, limiters)
	if err != nil {
		return nil, nil, err
	}
	base.Redact = redactorOf(cmd.Context())
	// Everything that would stop a task before it runs is found now, so
	// that a typo in task 180 does not surface an hour in.
	stderr := cmd.ErrOrStderr()
	warned := map[string]bool{}
	for i, s := range specs {
		// What a batch's tasks share is given once, by flag.
		if s.ModelsFile != "" {
			return nil, nil, usagef("task %s: models_file: a batch's tasks share one model table: give it with --models", s.Name)
		}
		if s.FallbackModel != "" || s.FallbackOn != "" {
			return nil, nil, usagef("task %s: fallback_model, fallback_on: a batch's tasks share one fallback: give it with --fallback-model and --fallback-on", s.Name)
		}
		specs[i] = batchSpec(f, s, cmd.Flags().Changed)
		warnings, err := checkSpec(base, specs[i])
		if err != nil {
			return nil, nil, usagef("task %s: %v", s.Name, err)
		}
		// Each task's log has its sandbox's warnings; the person at the
		// terminal hears each once.
		for _, w := range warnings {
			if !warned[w] {
				warned[w] = true
				warnf(stderr, "%s", w)
			}
		}
	}
	tr, stopTrace, err := startTrace(cmd.Context(), &f.spec.Ecosystem, stderr)
	if err != nil {
		closeLimiters(limiters, stderr)
		return nil, nil, err
	}
	base.Trace = tr
	runner = &batch.Agent{Base: base, Prepare: func(spec *taskfile.Spec, dir string, cfg *lifecycle.Config) (func(*lifecycle.Result, error), error) {
		return prepareBatchTask(cmd.Context(), f, spec, dir, cfg, limiters)
	}}
	return runner, func() { stopTrace(); closeLimiters(limiters, stderr) }, nil
}

// batchSpec is a task's spec with the flags laid over it, row by row of
// the run spec's table (overlay): what the task leaves unset takes the
// flag's value, --check, --approve, --env and the --mcp flags add to its
// own lists, and a --sandbox, --command-timeout or --max-file-size given
// on the command line wins over the task's. It returns a copy: the spec
// the task runs with, and records for its resume.
func batchSpec(f *batchFlags, in *taskfile.Spec, changed func(string) bool) *taskfile.Spec {
	s := *in
	s.Spec = in.Spec.Clone()
	overlay(&s.Spec, f.flagSpec(), func(flag string) bool {
		return changed(flag) && slices.Contains(batchWins, flag)
	})
	return &s
}

// batchWins are the flags that, given on the command line, win over a
// task's own key: how commands are confined is the person's to say.
var batchWins = []string{"sandbox", "command-timeout", "max-file-size"}

// checkSpec finds what would stop a task at its start: its limits, its
// folder, and what batch.TaskConfig would refuse (a check that cannot run,
// a bad gate rule, an unreadable output schema).
func checkSpec(base lifecycle.Config, s *taskfile.Spec) (warnings []string, err error) {
	if s.MaxSteps < 1 || s.MaxTokens < 0 || *s.Retries < 0 {
		return nil, fmt.Errorf("max_steps must be at least 1 and the limits not negative")
	}
	probe := llm.Usage{InputTokens: 1, OutputTokens: 1}
	if s.BudgetUSD > 0 && (base.Price == nil || !base.Price(probe).Known() || base.JudgePrice != nil && !base.JudgePrice(probe).Known()) {
		return nil, fmt.Errorf("budget_usd: the model table has no price for the model: give its prices with --models FILE, or set budget_tokens instead")
	}
	cfg, err := batch.TaskConfig(base, s, "")
	if err != nil {
		return nil, err
	}
	// Its sandbox can be had (bubblewrap for --sandbox bwrap, no
	// credential in env); where it lands does not matter here.
	sbc, err := cfg.Spec.SandboxConfig()
	if err != nil {
		return nil, err
	}
	sbc.Dir = "."
	sb, err := checkSandbox(sbc, base.StateBase)
	if err != nil {
		return nil, err
	}
	if s.Dir != "" {
		dir := s.Dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(s.BaseDir, dir)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("dir %s: not a folder", dir)
		}
	}
	return sb.Warnings(), nil
}

// prepareBatchTask gives one task what only the command knows: its event
// lines in its log beside its workspace (WORK/NNN-name.log), ended by the
// same summary `nightshift run` prints, and the judge its judge_model
// names. Nobody is asked at the gate: an action the policy says to ask
// about is refused, as in a run without a terminal.
func prepareBatchTask(ctx context.Context, f *batchFlags, spec *taskfile.Spec, dir string, cfg *lifecycle.Config, limiters *retry.Limiters) (func(*lifecycle.Result, error), error) {
	if cfg.Verifier == nil || cfg.Verifier.Judge == nil {
		cfg.Start = withoutJudge(cfg.Start) // no judge: its start event names none
	}
	// The endpoints' breakers are the process's, one state each for
	// every task; the threshold and cool-off applied to this task's
	// calls are its own (its breaker: key, else the flags').
	bc := breakerConfig(&spec.Spec)
	cfg.Retry.Breaker, cfg.JudgeBreaker = cfg.Retry.Breaker.With(bc), cfg.JudgeBreaker.With(bc)
	if cfg.Fallback != nil {
		fb := *cfg.Fallback // its rest stays the batch's one
		fb.Breaker = fb.Breaker.With(bc)
		cfg.Fallback = &fb
	}
	if spec.JudgeModel != "" && cfg.Verifier != nil && cfg.Verifier.Judge != nil {
		jb, err := modelSpecOf(&f.spec).judge(spec.JudgeModel, osGetenv)
		if err != nil {
			return nil, err
		}
		cfg.Verifier.Judge.Model, cfg.Verifier.Judge.ModelName = jb.model, jb.name
		cfg.JudgeLimiter = limiters.For(jb.endpoint, jb.credential)
		cfg.JudgeBreaker = breakersFor(f.stateDir).For(jb.endpoint, jb.credential, breakerConfig(&spec.Spec))
		cfg.Start = append(judgeInfo{jb.name, jb.target()}.fields(), withoutJudge(cfg.Start)...)
	}
	// What `nightshift run --resume RUN` rebuilds the task's run from
	// when it pauses (budget, timeout, interrupted).
	// The task's spec as it resumes (its one record: the checkpoint's
	// spec), the flags laid over it already (batchSpec), with the model
	// base resolved.
	rec := recordedForm(resumeSpec(spec), cfg.Spec.Provider, cfg.Spec.ModelName)
	cfg.Spec = &rec
	settings, err := settingsOf(&f.runFlags, resumeSpec(spec), dir, cfg.Spec.ModelName)
	if err != nil {
		return nil, err
	}
	cfg.Settings = settings
	file, release, err := openTaskLog(dir + ".log")
	if err != nil {
		return nil, err
	}
	log := redactorOf(ctx).Writer(file)
	cfg.Events = event.NewText(log)
	cfg.Warn = func(line string) { warnf(log, "%s", line) }
	return func(res *lifecycle.Result, err error) {
		defer release()
		defer file.Close()
		if err != nil {
			fmt.Fprintf(log, "nightshift: %v\n", notStarted(err, dir, f.stateDir))
			return
		}
		printEnd(res, f.stateDir, log)
	}, nil
}

// resumeSpec is a batch task's spec as `nightshift run --resume` needs it
// recorded: the flags are in it already (batchSpec); its folder is the
// task's workspace, and its output schema's path the one the run reads.
func resumeSpec(in *taskfile.Spec) *taskfile.Spec {
	s := *in
	s.Dir = ""
	if s.OutputSchema != "" && !filepath.IsAbs(s.OutputSchema) {
		s.OutputSchema = filepath.Join(s.BaseDir, s.OutputSchema)
	}
	return &s
}

// writePaused names, after the summary, each task that paused with its
// changes kept (budget, timeout, unavailable, interrupted) and the commands that go on
// with it or undo it: a paused task's workspace waits for one of them.
func writePaused(w io.Writer, sum *batch.Summary, stateDir string) {
	first := true
	for _, t := range sum.Tasks {
		switch t.Result.Outcome {
		case agent.Budget, agent.Timeout, agent.Unavailable, agent.Interrupted:
		default:
			continue
		}
		dir := absDir(t.Dir)
		paused, err := lifecycle.Paused(lifecycle.Config{Dir: dir, StateBase: stateDir})
		if err != nil || !slices.Contains(paused, t.Result.RunID) {
			continue
		}
		if first {
			fmt.Fprintln(w, "paused, changes kept; each waits for one of:")
			first = false
		}
		fmt.Fprintf(w, "  %s (%s)\n    go on:  nightshift run --resume %s%s%s\n    undo:   nightshift recover --dir %s%s\n",
			esc(t.Name), t.Result.Outcome, t.Result.RunID, stateArg(stateDir), raise(t.Result.Outcome), esc(dir), stateArg(stateDir))
	}
}

// writeBatchResume names the command that goes on with an interrupted
// batch as a whole, when some of its tasks did not end: the paused ones
// resume and the never-started ones start (the per-task commands above
// cannot start those).
func writeBatchResume(w io.Writer, sum *batch.Summary, tasks, stateDir string) {
	left := 0
	for _, t := range sum.Tasks {
		if t.NotStarted || t.Result.Outcome == agent.Interrupted {
			left++
		}
	}
	if left == 0 {
		return
	}
	fmt.Fprintf(w, "interrupted: %d of %d %s stopped or never started; the batch goes on with:\n  nightshift batch --resume --tasks %s --work %s%s\n",
		left, len(sum.Tasks), plural(len(sum.Tasks), "task"), esc(tasks), esc(absDir(sum.WorkDir)), stateArg(stateDir))
}

// checkWorkDir refuses, before anything runs, a --work that cannot hold
// the tasks' workspaces: a file, a path under a file, or a folder that
// is not empty (it was `batch: mkdir …: not a directory`).
func checkWorkDir(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return usagef("--work %s is a file: name a new or empty folder for the tasks' workspaces", dir)
	case err == nil:
		ents, err := os.ReadDir(dir)
		if err != nil {
			return usagef("--work %s cannot be read (%v): name a new or empty folder", dir, errors.Unwrap(err))
		}
		if len(ents) > 0 {
			return usagef("--work %s is not empty: name a new or empty folder (an earlier batch's workspaces are kept as they were)", dir)
		}
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		// Under a file (ENOTDIR), or not reachable at all.
		for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
			if fi, err := os.Stat(p); err == nil {
				if !fi.IsDir() {
					return usagef("--work %s: %s is a file, not a folder: name a new or empty folder elsewhere", dir, p)
				}
				break
			}
			if p == filepath.Dir(p) {
				break
			}
		}
		return usagef("--work %s: %v: name a new or empty folder", dir, errors.Unwrap(err))
	}
	return nil
}

// withoutJudge returns a start event's fields without the judge's (a
// task's own judge, or none), keeping the others (the fallback's).
func withoutJudge(fields []agent.StartField) []agent.StartField {
	var out []agent.StartField
	for _, f := range fields {
		if f.Key != "judge" && f.Key != "judge_endpoint" {
			out = append(out, f)
		}
	}
	return out
}

// openTaskLog opens (emptied) a task's log beside its workspace, in the
// batch's folder. Under bwrap no task's command reaches that folder;
// under none, one could have put a symlink or a FIFO there for the next
// task: it is never followed (a link to ~/.bashrc would be emptied and
// written) nor waited on. For as long as the task runs it is one of
// nightshift's own files (package ownfiles). release lets it go.
func openTaskLog(path string) (f *os.File, release func(), err error) {
	f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("the task's log: %w (a symlink or a FIFO there is not written through: remove it)", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("the task's log %s is not a regular file: remove it", path)
	}
	return f, ownfiles.Add(path), nil
}
