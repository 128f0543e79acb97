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
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/internal/ownfiles"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/statedir"
	"github.com/nightshift-dev/nightshift/taskfile"
	"github.com/nightshift-dev/nightshift/terminal"
)

// runFlags are the flags of `nightshift run`.
type runFlags struct {
	modelFlags
	dir             string
	maxSteps        int
	retries         int
	backoff         time.Duration
	maxTokens       int
	events          string
	outputSchema    string
	taskFile        string
	checks          []string
	noJudge         bool
	judgeModel      string
	maxVerifyRounds int
	approve         []string
	keep            bool
	rpm, tpm        int
	retryBudget     time.Duration
	stateDir        string
	keepState       time.Duration

	// Budgets, time and resumption (docs/budgets.md).
	budgetUSD           float64
	budgetTokens        int64
	timeout             time.Duration
	callTimeout         time.Duration
	loopLimit           int
	modelsFile          string
	rollbackOnInterrupt bool
	resume              string

	// Long conversations (README, "Long runs").
	noCache       bool
	contextWindow int
	fallbackModel string
	fallbackOn    string
	commandFlags
	eco ecoFlags
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

A run that reaches its --budget-usd, --budget-tokens or --timeout, or is
stopped with Ctrl-C, pauses: its changes and its checkpoint stay, and the
workspace waits until you go on (nightshift run --resume RUN) or undo it
(nightshift recover). Failed outcomes are rolled back; --keep commits every
outcome.

Exit status: 0 done, 2 usage, 3 step-limit, 4 unverified, 5 api-failure,
6 truncated, 7 needs-recovery, 9 budget, 10 timeout, 12 busy, 13 context-full,
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
	fl.StringVar(&f.dir, "dir", ".", "workspace root the tools may touch")
	fl.StringVar(&f.provider, "provider", "", "anthropic|openai|scripted (default: anthropic if ANTHROPIC_API_KEY is set, else openai if OPENAI_API_KEY is set)")
	fl.StringVar(&f.model, "model", "", "model name (env NIGHTSHIFT_MODEL; default "+defaultModels()+")")
	fl.StringVar(&f.baseURL, "base-url", "", "provider base URL (env ANTHROPIC_BASE_URL / OPENAI_BASE_URL); with openai, any OpenAI-compatible server")
	fl.StringVar(&f.scenario, "scenario", "", "scenario file for --provider scripted (docs/scenarios.md)")
	fl.BoolVar(&f.stream, "stream", false, "use the provider's streaming API")
	fl.StringVar(&f.maxTokensField, "max-tokens-field", "", "OpenAI wire: send the cap as max_tokens or max_completion_tokens (default: max_completion_tokens for api.openai.com, max_tokens for other servers)")
	fl.IntVar(&f.maxSteps, "max-steps", agent.DefaultMaxSteps, "step brake: the most worker model calls")
	fl.IntVar(&f.retries, "retries", 3, "retries per model call after the first (N means at most N+1 calls)")
	fl.DurationVar(&f.backoff, "backoff", time.Second, "first retry wait; doubles with jitter, never shorter than Retry-After")
	fl.IntVar(&f.maxTokens, "max-tokens", agent.DefaultMaxTokens, "output cap per call")
	fl.StringVar(&f.events, "events", "", "write events as JSON lines to FILE (docs/events.md)")
	fl.StringVar(&f.outputSchema, "output-schema", "", "JSON Schema FILE the final answer must satisfy")
	fl.StringVar(&f.taskFile, "task-file", "", "YAML task file: task, checks, rubric, limits (flags override it)")
	fl.StringArrayVar(&f.checks, "check", nil, "verifier rule, repeatable (docs/checks.md), e.g. min-chars:post.md:4000")
	fl.BoolVar(&f.noJudge, "no-judge", false, "verify with the rules only, no judge model")
	fl.StringVar(&f.judgeModel, "judge-model", "", "judge model: MODEL or PROVIDER:MODEL (default: the worker's)")
	fl.IntVar(&f.maxVerifyRounds, "max-verify-rounds", agent.DefaultMaxVerifyRounds, "FAILs fed back before a FAIL ends the run as unverified")
	fl.StringArrayVar(&f.approve, "approve", nil, "gate policy, repeatable, over the default read=allow,write=allow,danger=ask: CLASS=… or TOOL=allow|ask|deny")
	fl.BoolVar(&f.keep, "keep", false, "commit the workspace changes of every outcome: no rollback, no pause")
	fl.IntVar(&f.rpm, "rpm", 0, "pace requests to at most N per minute per credential, across this machine's nightshift processes (default: learned from rate-limit headers and 429s)")
	fl.IntVar(&f.tpm, "tpm", 0, "pace estimated tokens to at most N per minute per credential (default: learned)")
	fl.DurationVar(&f.retryBudget, "retry-budget", retry.DefaultBudget, "total wait allowed per model call; a 429 with Retry-After is waited out within it instead of counting against --retries")
	fl.Float64Var(&f.budgetUSD, "budget-usd", 0, "pause the run (exit 9, resumable) before a call that would take its spend past X dollars, priced by the model table; 0: none")
	fl.Int64Var(&f.budgetTokens, "budget-tokens", 0, "pause the run (exit 9, resumable) before a call that would take its tokens past N; 0: none")
	fl.DurationVar(&f.timeout, "timeout", 0, "pause the run (exit 10, resumable) once it has run this long (wall clock); 0: none")
	fl.DurationVar(&f.stall, "stall", defaultStall, "cancel and retry a streaming call that receives nothing for this long (until its first byte, plus the time the server needs to read the prompt); 0: never")
	fl.DurationVar(&f.callTimeout, "call-timeout", defaultCallTimeout, "cancel and retry a call that does not stream and has no reply after this long; 0: never")
	fl.IntVar(&f.loopLimit, "loop-limit", agent.DefaultLoopLimit, "the same tool call with the same result this many times in a row warns the model once; once more ends the run (step-limit); -1: off")
	fl.StringVar(&f.modelsFile, "models", "", "YAML FILE of model rows (prices, context windows) laid over the built-in model table (docs/budgets.md)")
	fl.BoolVar(&f.rollbackOnInterrupt, "rollback-on-interrupt", false, "roll an interrupted run back at once instead of pausing it for --resume")
	fl.BoolVar(&f.noCache, "no-cache", false, "turn prompt caching off (on by default: Anthropic cache breakpoints, a byte-stable prefix for OpenAI)")
	fl.IntVar(&f.contextWindow, "context-window", 0, "the model's context window in tokens, for compaction (default: the model table's, else what a local server says: docs/local-models.md; unknown: no compaction)")
	fl.StringVar(&f.fallbackModel, "fallback-model", "", "a second model, MODEL or PROVIDER:MODEL, for calls whose retries ran out on a timing failure or that were answered empty twice")
	fl.StringVar(&f.fallbackOn, "fallback-on", "", "quota: fall back on quota failures too (default: they end the run)")
	fl.StringVar(&f.resume, "resume", "", "go on with the paused run RUN_ID (its recorded configuration; only budget and time flags may be given with it)")
	stateDirFlag(cmd, &f.stateDir)
	f.keepState = defaultKeepState
	fl.Var(keepFlag{&f.keepState}, "keep-state", "prune this workspace's run records and checkpoints older than this at start (30d, 12h; 0 keeps all)")
	addCommandFlags(cmd, &f.commandFlags)
	addEcoFlags(cmd, &f.eco)
}

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
	lims := f.limiters()
	defer closeLimiters(lims, cmd.ErrOrStderr())
	cfg, err := runConfig(f, spec, lims)
	if err != nil {
		return err
	}
	cfg.Dir = dir
	if cfg.Settings, err = settingsOf(f, spec, cfg.Dir, cfg.ModelName); err != nil {
		return err
	}
	done, err := f.attach(cmd, &cfg)
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
func (f *runFlags) attach(cmd *cobra.Command, cfg *lifecycle.Config) (func(), error) {
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
	tr, stopTrace, err := f.eco.startTrace(cmd.Context(), stderr)
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
	if changed("max-steps") || spec.MaxSteps == 0 {
		spec.MaxSteps = f.maxSteps
	}
	if changed("max-tokens") || spec.MaxTokens == 0 {
		spec.MaxTokens = f.maxTokens
	}
	if changed("max-verify-rounds") || spec.MaxVerifyRounds == 0 {
		spec.MaxVerifyRounds = f.maxVerifyRounds
	}
	if changed("retries") || spec.Retries == nil {
		r := f.retries
		spec.Retries = &r
	}
	if changed("output-schema") {
		spec.OutputSchema = f.outputSchema
	} else if spec.OutputSchema != "" {
		spec.OutputSchema = filepath.Join(spec.BaseDir, spec.OutputSchema)
	}
	spec.Checks = append(spec.Checks, f.checks...)
	if changed("no-judge") {
		spec.NoJudge = f.noJudge
	}
	if changed("judge-model") {
		spec.JudgeModel = f.judgeModel
	}
	spec.Approve = append(spec.Approve, f.approve...)
	if changed("budget-usd") {
		spec.BudgetUSD = f.budgetUSD
	}
	if changed("budget-tokens") {
		spec.BudgetTokens = f.budgetTokens
	}
	if changed("timeout") {
		spec.Timeout = taskfile.Duration(f.timeout)
	}
	if changed("loop-limit") || spec.LoopLimit == nil {
		n := f.loopLimit
		spec.LoopLimit = &n
	}
	if changed("models") {
		spec.ModelsFile = f.modelsFile
	} else if spec.ModelsFile != "" {
		spec.ModelsFile = filepath.Join(spec.BaseDir, spec.ModelsFile)
	}
	if changed("rollback-on-interrupt") {
		spec.RollbackOnInterrupt = f.rollbackOnInterrupt
	}
	if changed("no-cache") {
		spec.NoCache = f.noCache
	}
	if changed("context-window") {
		spec.ContextWindow = f.contextWindow
	}
	if changed("fallback-model") {
		spec.FallbackModel = f.fallbackModel
	}
	if changed("fallback-on") {
		spec.FallbackOn = f.fallbackOn
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
	mergeCommands(changed, &f.commandFlags, spec)
	for _, l := range []struct {
		flag, key string
		n         int
	}{{"max-steps", "max_steps", spec.MaxSteps}, {"max-tokens", "max_tokens", spec.MaxTokens},
		{"retries", "retries", *spec.Retries}, {"max-verify-rounds", "max_verify_rounds", spec.MaxVerifyRounds}} {
		if l.n < 0 {
			return nil, usagef("--%s (task file: %s) must not be negative, got %d", l.flag, l.key, l.n)
		}
	}
	if *spec.LoopLimit < -1 {
		return nil, usagef("--loop-limit (task file: loop_limit) is N repeats, 0 for the default (%d) or -1 for off, got %d", agent.DefaultLoopLimit, *spec.LoopLimit)
	}
	if err := checkBudgets(spec); err != nil {
		return nil, err
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
	if changed("subagent-steps") && !f.eco.subagents {
		return usagef("--subagent-steps is the sub-agents' step brake: add --subagents, or drop it")
	}
	if f.rpm < 0 || f.tpm < 0 {
		return usagef("--rpm and --tpm must not be negative (leave them out to learn the provider's limits)")
	}
	// A trace file that cannot be opened is found before anything runs
	// (it was the tracing package's error, with its package's name).
	if err := checkOutFileAs("otel-file", f.eco.otelFile, "traces.jsonl"); err != nil {
		return err
	}
	if err := checkOutFileAs("events", f.events, "events.jsonl"); err != nil {
		return err
	}
	for _, a := range f.approve {
		if err := gate.CheckSpec(a); err != nil {
			return usagef("--approve %q: %v", a, err)
		}
	}
	return nil
}

// limiters returns the process's limiter registry, paced by hand when
// --rpm or --tpm is given and shared with the machine's other processes
// through the state directory (newLimiters).
func (f *runFlags) limiters() *retry.Limiters {
	return newLimiters(f.stateDir, retry.LimiterConfig{RPM: f.rpm, TPM: f.tpm})
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
