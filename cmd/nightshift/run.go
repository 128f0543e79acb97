package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/internal/ownfiles"
	"github.com/nightshift-dev/nightshift/internal/terminal"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/statedir"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// runFlags are the flags of `nightshift run` (and batch's, which has
// them all). Every run option's flag is bound to its field of spec, the
// one declaration of a run (runspec.Table says which flag is which
// field): the flags decode into the run spec, and nothing copies them.
// The fields beside it are the process's, not the run's: where the
// workspace and the state are, where the events go, which task file.
type runFlags struct {
	spec runspec.Spec
	// noClaims is --no-claims, the claims key said the other way round:
	// claims: false when given (flagSpec).
	noClaims  bool
	dir       string
	events    string
	taskFile  string
	stateDir  string
	keepState time.Duration
	resume    string
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [flags] \"TASK\"",
		Short: "Run one task to exactly one outcome",
		Long: `Run lets a model work on a folder with file tools until it says it is done and
the verifier passes the result. stdout carries only the final answer; stderr
one [kind · detail] line per event.

nightshift keeps its state (journal, audit log, run records) outside the
workspace, in --state-dir; the last line names the run's record.

A run that reaches its --budget-usd, --budget-tokens or --timeout, whose
provider stays down past --retry-budget (its circuit breaker open), or is
stopped with Ctrl-C, pauses: its changes and its checkpoint stay, and the
workspace waits until you go on (nightshift run --resume RUN) or undo it
(nightshift recover). Failed outcomes are rolled back; --keep commits every
outcome.

Exit status: 0 done, 2 usage, 3 step-limit, 4 unverified, 5 api-failure,
6 truncated, 7 needs-recovery, 9 budget, 10 timeout, 11 unavailable, 12 busy, 13 context-full,
130 interrupted, 1 anything else.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("run takes one TASK argument (quote it), got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var task string
			if len(args) == 1 {
				task = args[0]
			}
			return runTask(cmd, &f, task)
		},
	}
	addRunFlags(cmd, &f)
	return cmd
}

func addRunFlags(cmd *cobra.Command, f *runFlags) {
	fl := cmd.Flags()
	s := &f.spec
	fl.StringVar(&f.dir, "dir", ".", doc("dir"))
	fl.StringVar(&s.Provider, "provider", "", doc("provider"))
	fl.StringVar(&s.ModelName, "model", "", doc("model")+" (env NIGHTSHIFT_MODEL; default "+defaultModels()+")")
	fl.StringVar(&s.BaseURL, "base-url", "", doc("base-url"))
	fl.StringVar(&s.Scenario, "scenario", "", doc("scenario"))
	fl.BoolVar(&s.Stream, "stream", false, doc("stream"))
	fl.StringVar(&s.MaxTokensField, "max-tokens-field", "", doc("max-tokens-field"))
	fl.IntVar(&s.MaxSteps, "max-steps", agent.DefaultMaxSteps, doc("max-steps"))
	s.Retries = new(int)
	fl.IntVar(s.Retries, "retries", 3, doc("retries"))
	fl.DurationVar(durationOf(&s.Backoff), "backoff", time.Second, doc("backoff"))
	fl.IntVar(&s.MaxTokens, "max-tokens", agent.DefaultMaxTokens, doc("max-tokens"))
	fl.StringVar(&f.events, "events", "", doc("events"))
	fl.StringVar(&s.OutputSchema, "output-schema", "", doc("output-schema"))
	fl.StringVar(&f.taskFile, "task-file", "", doc("task-file"))
	fl.StringArrayVar((*[]string)(&s.Checks), "check", nil, doc("check"))
	fl.BoolVar(&s.NoJudge, "no-judge", false, doc("no-judge"))
	fl.BoolVar(&f.noClaims, "no-claims", false, doc("no-claims"))
	fl.StringVar(&s.JudgeModel, "judge-model", "", doc("judge-model"))
	fl.IntVar(&s.MaxVerifyRounds, "max-verify-rounds", agent.DefaultMaxVerifyRounds, doc("max-verify-rounds"))
	fl.StringArrayVar((*[]string)(&s.Approve), "approve", nil, doc("approve"))
	fl.BoolVar(&s.Keep, "keep", false, doc("keep"))
	fl.IntVar(&s.RPM, "rpm", 0, doc("rpm"))
	fl.IntVar(&s.TPM, "tpm", 0, doc("tpm"))
	fl.DurationVar(durationOf(&s.RetryBudget), "retry-budget", retry.DefaultBudget, doc("retry-budget"))
	fl.IntVar(&s.BreakerFailures, "breaker-failures", breaker.DefaultFailures, doc("breaker-failures"))
	fl.DurationVar(durationOf(&s.BreakerCool), "breaker-cool", breaker.DefaultCool, doc("breaker-cool"))
	fl.Float64Var(&s.BudgetUSD, "budget-usd", 0, doc("budget-usd"))
	fl.Int64Var(&s.BudgetTokens, "budget-tokens", 0, doc("budget-tokens"))
	fl.DurationVar(durationOf(&s.Timeout), "timeout", 0, doc("timeout"))
	s.Stall, s.CallTimeout = new(runspec.Duration), new(runspec.Duration)
	fl.DurationVar(durationOf(s.Stall), "stall", defaultStall, doc("stall"))
	fl.DurationVar(durationOf(s.CallTimeout), "call-timeout", defaultCallTimeout, doc("call-timeout"))
	s.LoopLimit = new(int)
	fl.IntVar(s.LoopLimit, "loop-limit", agent.DefaultLoopLimit, doc("loop-limit"))
	fl.IntVar(&s.MaxCallsPerReply, "max-calls-per-reply", agent.DefaultMaxCallsPerReply, doc("max-calls-per-reply"))
	fl.StringVar(&s.ModelsFile, "models", "", doc("models"))
	fl.BoolVar(&s.RollbackOnInterrupt, "rollback-on-interrupt", false, doc("rollback-on-interrupt"))
	fl.BoolVar(&s.NoCache, "no-cache", false, doc("no-cache"))
	fl.IntVar(&s.ContextWindow, "context-window", 0, doc("context-window"))
	fl.StringVar(&s.FallbackModel, "fallback-model", "", doc("fallback-model"))
	fl.StringVar(&s.FallbackOn, "fallback-on", "", doc("fallback-on"))
	fl.StringVar(&f.resume, "resume", "", doc("resume"))
	stateDirFlag(cmd, &f.stateDir)
	f.keepState = defaultKeepState
	fl.Var(keepFlag{&f.keepState}, "keep-state", doc("keep-state"))
	addCommandFlags(cmd, &s.Commands)
	addEcoFlags(cmd, &s.Ecosystem)
}

// durationOf is a spec's duration as the time.Duration a flag sets.
func durationOf(d *runspec.Duration) *time.Duration { return (*time.Duration)(d) }

// runTask is `nightshift run`: the flags become the run lifecycle's
// config, and the outcome is printed and becomes the exit status.
func runTask(cmd *cobra.Command, f *runFlags, task string) error {
	if f.resume != "" {
		return runResume(cmd, f, task)
	}
	spec, err := mergeTask(cmd, f, task)
	if err != nil {
		return err
	}
	dir, err := runDir(f, spec)
	if err != nil {
		return err
	}
	// A state directory in the workspace is refused before the limiters
	// write under it (it left a limits folder in the workspace).
	if base, err := statedir.Base(f.stateDir); err == nil {
		if err := statedir.CheckOutside(base, dir); errors.Is(err, statedir.ErrUnusable) {
			return usageError(err)
		}
	}
	lims := limitersFor(f.stateDir, &spec.Spec)
	defer closeLimiters(lims, cmd.ErrOrStderr())
	cfg, err := runConfig(f, spec, lims)
	if err != nil {
		return err
	}
	cfg.Dir = dir
	if cfg.Settings, err = settingsOf(f, spec, cfg.Dir, cfg.Spec.ModelName); err != nil {
		return err
	}
	done, err := f.attach(cmd, &cfg, &spec.Spec)
	if err != nil {
		return err
	}
	defer done()
	res, err := lifecycle.Run(cmd.Context(), cfg, spec.Task)
	if err != nil {
		return notStarted(err, cfg.Dir, f.stateDir)
	}
	return finish(cmd, res, f.stateDir)
}

// attach gives cfg what the process has for a run, the same for a run
// and a resumed one: the events (stderr, and --events), the person's
// answers to the gate, the redactor of every credential the process
// knows, the warnings and the traces. The returned function closes
// what it opened; call it when the run has ended.
func (f *runFlags) attach(cmd *cobra.Command, cfg *lifecycle.Config, spec *runspec.Spec) (func(), error) {
	stderr := cmd.ErrOrStderr()
	evFile, err := openEvents(f.events)
	if err != nil {
		return nil, err
	}
	var jsonSink event.Sink
	if evFile != nil {
		jsonSink = event.NewJSON(evFile)
	}
	cfg.Events = event.Multi(event.NewText(stderr), jsonSink)
	if in, ok := cmd.InOrStdin().(*os.File); ok {
		cfg.Asker = gate.Interactive(in, stderr)
	}
	cfg.Redact = redactorOf(cmd.Context())
	cfg.Warn = func(line string) { warnf(stderr, "%s", line) }
	tr, stopTrace, err := startTrace(cmd.Context(), &spec.Ecosystem, stderr)
	if err != nil {
		if evFile != nil {
			evFile.Close()
		}
		return nil, err
	}
	cfg.Trace = tr
	return func() {
		stopTrace()
		if evFile != nil {
			evFile.Close()
		}
	}, nil
}

// printOutcome prints the end of a run for the person at the terminal.
// Its reason and check names hold what the worker and its commands
// wrote (a cmd: check's output tail): each is escaped onto its line.
func printOutcome(res *agent.Result, w io.Writer) {
	u := res.Usage
	cache := ""
	if u.CacheWriteTokens+u.CacheReadTokens > 0 {
		cache = fmt.Sprintf(" (cache: %d written, %d read)", u.CacheWriteTokens, u.CacheReadTokens)
	}
	fmt.Fprintf(w, "nightshift: %s after %d %s (exit %d); tokens: %d in%s, %d out; cost: %s\n",
		res.Outcome, res.Steps, plural(res.Steps, "step"), exitFor(res.Outcome), u.InputTokens, cache, u.OutputTokens, costLine(res.Cost))
	switch res.Outcome {
	case agent.Done:
	case agent.Unverified:
		fmt.Fprintf(w, "nightshift: UNVERIFIED — a person must look. Failed checks: %s\n  %s\n",
			terminal.Escape(strings.Join(res.FailedChecks, ", ")), terminal.Escape(res.Reason))
	default:
		fmt.Fprintf(w, "nightshift: %s\n", terminal.Escape(res.Reason))
	}
	if len(res.FailsByCheck) > 0 {
		fmt.Fprintf(w, "nightshift: FAILs by check: %s\n", terminal.Escape(failsByCheck(res.FailsByCheck)))
	}
}

// failsByCheck renders the FAIL counts, most first, then by name:
// "min-chars 2, judge 1" (seed 000's homework: which check catches more).
func failsByCheck(m map[string]int) string {
	names := slices.Collect(maps.Keys(m))
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b))
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, m[n])
	}
	return strings.Join(parts, ", ")
}

// mergeTask combines the task file, the argument and the flags; flags
// that were given override the file.
func mergeTask(cmd *cobra.Command, f *runFlags, task string) (*taskfile.Spec, error) {
	spec := &taskfile.Spec{BaseDir: "."}
	if f.taskFile != "" {
		learnFiles(cmd.Context(), f.taskFile)
		s, err := taskfile.Load(f.taskFile)
		if err != nil {
			return nil, usageError(err)
		}
		spec = s
	}
	if task != "" {
		spec.Task = task
	}
	if strings.TrimSpace(spec.Task) == "" {
		return nil, usagef(`no task: give it as an argument (nightshift run "TASK") or in --task-file`)
	}
	changed := cmd.Flags().Changed
	if err := checkRunFlags(f, changed); err != nil {
		return nil, err
	}
	// Paths a task file gives are read relative to it; a flag's, to here.
	schemaFromFile := spec.OutputSchema != "" && !changed("output-schema")
	modelsFromFile := spec.ModelsFile != "" && !changed("models")
	// The flags given win over the file; a field the file leaves unset
	// takes the flag's default; --check, --approve and --env add to the
	// file's lists (the run spec's table says which flag is which key).
	overlay(&spec.Spec, f.flagSpec(), changed)
	if schemaFromFile {
		spec.OutputSchema = filepath.Join(spec.BaseDir, spec.OutputSchema)
	}
	if modelsFromFile {
		spec.ModelsFile = filepath.Join(spec.BaseDir, spec.ModelsFile)
	}
	if spec.ContextWindow < 0 {
		return nil, usagef("--context-window must not be negative")
	}
	if err := taskfile.CheckFallbackOn(spec.FallbackOn); err != nil {
		return nil, usageError(err)
	}
	if spec.FallbackOn != "" && spec.FallbackModel == "" {
		return nil, usagef("--fallback-on (task file: fallback_on) says when to use the fallback model: name one with --fallback-model (task file: fallback_model)")
	}
	if changed("command-timeout") && f.spec.CommandTimeout <= 0 {
		return nil, usagef("--command-timeout (task file: command_timeout) is %q: want a positive duration such as 5m", f.spec.CommandTimeout.D().String())
	}
	// One check of every value, wherever it came from: the error names
	// the flag and the task file's key (runspec.Spec.Validate).
	if err := spec.Spec.ValidateIn(spec.BaseDir); err != nil {
		return nil, usageError(err)
	}
	if spec.MaxSteps == 0 {
		return nil, usagef("--max-steps must be at least 1")
	}
	return spec, nil
}

// checkRunFlags refuses flags given together that cannot both be
// honoured, and flags that would do nothing: either way one of them would
// be ignored without a word.
func checkRunFlags(f *runFlags, changed func(string) bool) error {
	for _, pair := range [][2]string{
		{"no-judge", "judge-model"},       // no judge, and a model for it
		{"keep", "rollback-on-interrupt"}, // commit every outcome, and roll one back
	} {
		if changed(pair[0]) && changed(pair[1]) {
			return usagef("--%s and --%s cannot be given together: drop one", pair[0], pair[1])
		}
	}
	if changed("subagent-steps") && !f.spec.Subagents {
		return usagef("--subagent-steps is the sub-agents' step brake: add --subagents, or drop it")
	}
	if f.spec.RPM < 0 || f.spec.TPM < 0 {
		return usagef("--rpm and --tpm must not be negative (leave them out to learn the provider's limits)")
	}
	// A trace file that cannot be opened is found before anything runs
	// (it was the tracing package's error, with its package's name).
	if err := checkOutFileAs("otel-file", f.spec.OtelFile, "traces.jsonl"); err != nil {
		return err
	}
	if err := checkOutFileAs("events", f.events, "events.jsonl"); err != nil {
		return err
	}
	for _, a := range f.spec.Approve {
		if err := gate.CheckSpec(a); err != nil {
			return usagef("--approve %q: %v", a, err)
		}
	}
	return nil
}

// limitersFor returns the process's limiter registry, paced by hand when
// the spec's rpm or tpm (--rpm, --tpm) is given and shared with the
// machine's other processes through the state directory (newLimiters).
func limitersFor(stateDir string, s *runspec.Spec) *retry.Limiters {
	return newLimiters(stateDir, retry.LimiterConfig{RPM: s.RPM, TPM: s.TPM})
}

// openEvents opens the --events file for appending.
func openEvents(path string) (io.WriteCloser, error) {
	if path == "" {
		return nil, nil
	}
	w, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, usagef("--events: %v", err)
	}
	// Inside the workspace (--dir . --events e.jsonl), it is nightshift's
	// own file: not the run's change, not the judge's to read, not the
	// rollback's to cut (package ownfiles).
	ownfiles.Add(path)
	return w, nil
}

// checkBudgets names the one budget or time limit that is negative, as
// the flag and as the task file's key: a message naming three flags
// leaves the user to find which of them was wrong.
func checkBudgets(spec *taskfile.Spec) error {
	switch {
	case spec.BudgetUSD < 0:
		return usagef("--budget-usd (task file: budget_usd) must not be negative, got %g", spec.BudgetUSD)
	case spec.BudgetTokens < 0:
		return usagef("--budget-tokens (task file: budget_tokens) must not be negative, got %d", spec.BudgetTokens)
	case spec.Timeout < 0:
		return usagef("--timeout (task file: timeout) must not be negative, got %s", time.Duration(spec.Timeout))
	}
	return nil
}
