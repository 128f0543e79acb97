package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/batch"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/redact"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/taskfile"
	"github.com/nightshift-dev/nightshift/verify"
)

// batchFlags are the flags of `nightshift batch`: run's flags (the model,
// the limits as defaults, the retry and rate-limit settings) and its own.
type batchFlags struct {
	runFlags
	tasks    string
	parallel int
	work     string
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
--task-file (docs/batch.md). Run's limit flags are the defaults for tasks
that do not set them; --check and --approve add to every task's own.

Progress goes to stderr: a live bar on a terminal, one line per finished task
otherwise. The summary table goes to stdout. Each task's event lines are in
its log beside its workspace (WORK/007-name.log).

Exit status: 0 every task ended done, 8 some did not, 2 usage, 130
interrupted.`,
		Args: func(_ *cobra.Command, args []string) error {
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
			return usagef("--%s is set per task in a batch: put it in the tasks file (docs/batch.md)", n)
		}
	}
	if f.tasks == "" {
		return usagef("batch needs --tasks FILE: a YAML list of tasks, a *.jsonl file or a folder of task files (docs/batch.md)")
	}
	if f.parallel < 1 {
		return usagef("--parallel must be at least 1")
	}
	if f.retryBudget < 0 {
		return usagef("--retry-budget must not be negative")
	}
	specs, err := taskfile.LoadList(f.tasks)
	if err != nil {
		return usageError(err)
	}
	// Everything that would stop a task before it runs is found now, so
	// that a typo in task 180 does not surface an hour in.
	if _, err := f.modelFlags.resolve(osGetenv); err != nil {
		return err
	}
	for i, s := range specs {
		specs[i] = batchSpec(cmd, f, s)
		if err := checkSpec(specs[i]); err != nil {
			return usagef("task %s: %v", s.Name, err)
		}
	}

	stderr := cmd.ErrOrStderr()
	live := false
	if fh, ok := redact.Underlying(stderr).(*os.File); ok {
		live = gate.IsTerminal(fh)
	}
	limiters := f.limiters()
	sum, err := batch.Run(cmd.Context(), batch.Config{
		Parallel: f.parallel,
		WorkDir:  f.work,
		Run: func(ctx context.Context, s *taskfile.Spec, dir string) *agent.Result {
			return runBatchTask(ctx, f, s, dir, limiters)
		},
		Progress: stderr,
		Live:     live,
	}, specs)
	if err != nil {
		return usageError(err)
	}
	if err := sum.WriteTable(cmd.OutOrStdout()); err != nil {
		return err
	}
	if cmd.Context().Err() != nil {
		return exitWith(agent.Interrupted.ExitCode())
	}
	return exitWith(sum.ExitCode())
}

// batchSpec fills what a task leaves unset from the flags: the task's own
// fields win, and --check and --approve add to its own. It returns a copy.
func batchSpec(cmd *cobra.Command, f *batchFlags, in *taskfile.Spec) *taskfile.Spec {
	s := *in
	if s.MaxSteps == 0 {
		s.MaxSteps = f.maxSteps
	}
	if s.MaxTokens == 0 {
		s.MaxTokens = f.maxTokens
	}
	if s.MaxVerifyRounds == 0 {
		s.MaxVerifyRounds = f.maxVerifyRounds
	}
	if s.Retries == nil {
		r := f.retries
		s.Retries = &r
	}
	if s.OutputSchema != "" && !filepath.IsAbs(s.OutputSchema) {
		s.OutputSchema = filepath.Join(s.BaseDir, s.OutputSchema)
	}
	s.Checks = append(append([]string(nil), s.Checks...), f.checks...)
	s.Approve = append(append([]string(nil), s.Approve...), f.approve...)
	s.NoJudge = s.NoJudge || f.noJudge
	if s.JudgeModel == "" {
		s.JudgeModel = f.judgeModel
	}
	// How commands run: the task's own say, else the flags'; --env adds
	// to the task's list.
	if s.Sandbox == "" || cmd.Flags().Changed("sandbox") {
		s.Sandbox = f.sandbox
	}
	s.SandboxNet = s.SandboxNet || f.sandboxNet
	s.Env = append(append([]string(nil), s.Env...), f.env...)
	if s.CommandTimeout == "" || cmd.Flags().Changed("command-timeout") {
		s.CommandTimeout = f.commandTimeout.String()
	}
	return &s
}

// checkSpec finds what would stop a task at its start.
func checkSpec(s *taskfile.Spec) error {
	if s.MaxSteps < 1 || s.MaxTokens < 0 || *s.Retries < 0 {
		return fmt.Errorf("max_steps must be at least 1 and the limits not negative")
	}
	for _, c := range s.Checks {
		if _, err := verify.ParseRule(c, s.BaseDir); err != nil {
			return fmt.Errorf("check %q: %w", c, err)
		}
	}
	if _, err := gate.ParsePolicy(s.Approve...); err != nil {
		return err
	}
	if s.OutputSchema != "" {
		if _, err := loadSchema(s.OutputSchema); err != nil {
			return err
		}
	}
	if s.Dir != "" {
		dir := s.Dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(s.BaseDir, dir)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("dir %s: not a folder", dir)
		}
	}
	return nil
}

// runBatchTask runs one task as `nightshift run` would in its workspace,
// with its event lines in WORK/NNN-name.log and no one to ask at the
// gate: an action the policy says to ask about is refused, as in a
// run without a terminal.
func runBatchTask(ctx context.Context, f *batchFlags, spec *taskfile.Spec, dir string, limiters *retry.Limiters) *agent.Result {
	failed := func(o agent.Outcome, err error) *agent.Result {
		return &agent.Result{Outcome: o, Reason: err.Error(), Err: err}
	}
	file, err := os.Create(dir + ".log")
	if err != nil {
		return failed(agent.Failed, err)
	}
	defer file.Close()
	log := redactorOf(ctx).Writer(file)
	rf := f.runFlags
	rf.dir = dir
	s, err := setupRun(ctx, &rf, spec, strings.NewReader(""), log, limiters)
	if err != nil {
		return failed(agent.Usage, err)
	}
	defer s.close()
	if err := s.begin(); err != nil {
		return failed(agent.Failed, err)
	}
	res := s.run(ctx, spec.Task)
	s.report(res, log)
	return res
}
