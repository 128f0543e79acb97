package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/fallback"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/statedir"
	"github.com/nightshift-dev/nightshift/taskfile"
	"github.com/nightshift-dev/nightshift/verify"
)

// runConfig turns the flags and a task's spec into the run lifecycle's
// config: the model, the retry policy and the limiters, the limits, the
// gate's rules, the checks and the judge, the output schema, --keep and
// the exit table. The workspace, the events and the asker are the
// caller's. Every problem found here is a usage error: nothing has run.
func runConfig(f *runFlags, spec *taskfile.Spec, limiters *retry.Limiters) (lifecycle.Config, error) {
	mf := modelSpecOf(&spec.Spec)
	if mf.stall == 0 {
		mf.stall = -1 // a person's --stall 0: never (the provider's 0 is its default)
	}
	b, err := mf.resolve(osGetenv)
	if err != nil {
		return lifecycle.Config{}, err
	}
	if spec.RetryBudget < 0 {
		return lifecycle.Config{}, usagef("--retry-budget must not be negative")
	}
	if _, err := gate.ParsePolicy(spec.Approve...); err != nil {
		return lifecycle.Config{}, usageError(err)
	}
	v, judgeLimiter, judge, err := buildVerifier(mf, spec, b, limiters)
	if err != nil {
		return lifecycle.Config{}, err
	}
	if _, err := sandboxConfig(spec); err != nil {
		return lifecycle.Config{}, err
	}
	// Their messages name the flag and the key (the spec lays them).
	if _, err := maxFileSize(spec); err != nil {
		return lifecycle.Config{}, err
	}
	if _, err := commandTimeout(spec); err != nil {
		return lifecycle.Config{}, err
	}
	var schema *jsonschema.Resolved
	if spec.OutputSchema != "" {
		if schema, err = loadSchema(spec.OutputSchema); err != nil {
			return lifecycle.Config{}, usageError(err)
		}
	}
	table, err := modelTable(spec.ModelsFile)
	if err != nil {
		return lifecycle.Config{}, err
	}
	price, judgePrice, err := prices(spec, b, judge, table)
	if err != nil {
		return lifecycle.Config{}, err
	}
	callTimeout := specDuration(spec.CallTimeout, defaultCallTimeout)
	if callTimeout < 0 {
		return lifecycle.Config{}, usagef("--call-timeout must not be negative")
	}
	// A call that does not stream is bounded as a whole; a stream is
	// watched for silence instead (--stall), since a healthy one may run
	// longer than any whole-call limit.
	if spec.Stream {
		callTimeout = 0
	}
	if err := taskfile.CheckFallbackOn(spec.FallbackOn); err != nil {
		return lifecycle.Config{}, usageError(err)
	}
	if spec.ContextWindow < 0 {
		return lifecycle.Config{}, usagef("--context-window must not be negative")
	}
	fb, fbStart, err := fallbackOf(mf, spec, b, table, limiters, breakersFor(f.stateDir))
	if err != nil {
		return lifecycle.Config{}, err
	}
	// The spec the lifecycle reads, and records in the run's checkpoint:
	// the task's, with the model as resolved (recordedForm).
	run := recordedForm(spec, b.provider, b.name)
	cfg := lifecycle.Config{
		Spec:  &run,
		Model: b.model,
		// The spec's retries, backoff and retry budget the lifecycle
		// lays over the policy (lifecycle.Config.Retry).
		Retry: retry.Policy{
			CallTimeout: callTimeout,
			Limiter:     limiters.For(b.endpoint, b.credential),
			Breaker:     breakersFor(f.stateDir).For(b.endpoint, b.credential, breakerConfig(&spec.Spec)),
		},
		Price:        price,
		JudgePrice:   judgePrice,
		JudgeLimiter: judgeLimiter,
		JudgeBreaker: judgeBreaker(f, spec, judge),
		OutputSchema: schema,
		Verifier:     v,
		Exit:         exitFor,
		StateBase:    f.stateDir,
		KeepState:    keepState(f.keepState),
		ModelWindow:  tableWindow(table, b),
		Fallback:     fb,
		Start:        append(append(judgeOf(judge).fields(), fbStart...), windowField(spec, b, table)...),
	}
	// The spec's limits, gate, sandbox and end wishes: the lifecycle
	// takes the spec itself (the per-reply call cap among them), and
	// records it in the run's checkpoint. Checked here, so that a value
	// that cannot run is a usage error before anything starts.
	if err := specWithoutRules(&spec.Spec).Validate(); err != nil {
		return lifecycle.Config{}, usageError(err)
	}
	if cfg, err = cfg.WithSpec(); err != nil {
		return lifecycle.Config{}, usageError(err)
	}
	if err := applyEco(&cfg, spec); err != nil {
		return lifecycle.Config{}, err
	}
	return cfg, nil
}

// specWithoutRules is s without its rules, which buildVerifier parses
// from the task's own folder and names as the person wrote them.
func specWithoutRules(s *runspec.Spec) *runspec.Spec {
	c := *s
	c.Checks = nil
	return &c
}

// modelSpecOf is the model group of a spec as the model's resolution
// takes it (modelSpec.resolve), its stall watch's nil the default.
func modelSpecOf(s *runspec.Spec) modelSpec {
	return modelSpec{Model: s.Model, stall: specDuration(s.Stall, defaultStall)}
}

// specDuration is a spec's optional duration: def when it is not set.
func specDuration(d *runspec.Duration, def time.Duration) time.Duration {
	if d == nil {
		return def
	}
	return d.D()
}

// tableWindow is a built model's context window in the model table, 0
// when the table does not know it.
func tableWindow(table *models.Table, m *built) int {
	if row, ok := table.Lookup(m.provider, priceName(table, m.provider, m.name)); ok {
		return int(row.ContextWindow)
	}
	return 0
}

// fallbackOf builds the model --fallback-model names, nil for none. Its
// endpoint follows the judge's rule (judgeFlags): on the worker's
// provider it calls the worker's endpoint; on another provider, that
// provider's own *_BASE_URL or its public API. It gets its credential's
// limiter and its price. The start event's fields say where its calls
// go, as they say where the judge's do. It gets its endpoint's circuit
// breaker too.
func fallbackOf(mf modelSpec, spec *taskfile.Spec, worker *built, table *models.Table, limiters *retry.Limiters, breakers *breaker.Breakers) (*agent.Fallback, []agent.StartField, error) {
	if err := checkModelSpec("--fallback-model", spec.FallbackModel); err != nil {
		return nil, nil, err
	}
	ff, ok := mf.judgeFlags(spec.FallbackModel, osGetenv)
	if !ok {
		return nil, nil, nil
	}
	fb, err := ff.resolve(osGetenv)
	if err != nil {
		return nil, nil, usageError(fmt.Errorf("--fallback-model %s: %w", spec.FallbackModel, err))
	}
	if fb.provider == worker.provider && fb.name == worker.name && fb.target() == worker.target() {
		// The same model at the same endpoint: every call the worker's
		// could not answer would be made again where it just failed.
		return nil, nil, usagef("--fallback-model %s is the worker's own model at the same endpoint (%s): name another model or provider",
			spec.FallbackModel, worker.target())
	}
	if spec.BudgetUSD > 0 {
		if err := checkPriced(table, fb.provider, fb.name, "the fallback model"); err != nil {
			return nil, nil, err
		}
	}
	return &agent.Fallback{
			Model: fb.model, ModelName: fb.name, Price: pricer(table, fb.provider, fb.name),
			Limiter: limiters.For(fb.endpoint, fb.credential), OnQuota: spec.FallbackOn == "quota",
			Breaker: breakers.For(fb.endpoint, fb.credential, breakerConfig(&spec.Spec)),
			// The run compacts at the smaller window (agent.Fallback).
			ContextWindow: tableWindow(table, fb),
			// One rest for every run made from this config: a batch's
			// tasks share it, so a primary that failed for one task is
			// not called by the next before its rest is over.
			Rest: &fallback.Rest{},
		}, []agent.StartField{{Key: "fallback", Value: cmp.Or(fb.name, fb.provider)}, {Key: "fallback_endpoint", Value: fb.target()}},
		nil
}

// prices returns the pricers of the worker's and the judge's calls (nil
// judge: there is none), and refuses a dollar budget that could not be
// kept.
func prices(spec *taskfile.Spec, worker, judge *built, table *models.Table) (budget.Pricer, budget.Pricer, error) {
	price := pricer(table, worker.provider, worker.name)
	if spec.BudgetUSD > 0 {
		if err := checkPriced(table, worker.provider, worker.name, "the worker"); err != nil {
			return nil, nil, err
		}
	}
	if judge == nil {
		return price, nil, nil
	}
	if spec.BudgetUSD > 0 {
		if err := checkPriced(table, judge.provider, judge.name, "the judge"); err != nil {
			return nil, nil, err
		}
	}
	return price, pricer(table, judge.provider, judge.name), nil
}

// keepState maps --keep-state (0 keeps everything) onto the lifecycle's
// KeepState (0 is the default, negative keeps everything).
func keepState(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// verifyRounds maps the user's count (0 = none) onto the lifecycle's spec
// (0 = default, negative = none).
func verifyRounds(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// runDir is the workspace a task names: its spec's dir, read relative to
// the task file, unless --dir says otherwise.
func runDir(f *runFlags, spec *taskfile.Spec) (string, error) {
	dir := f.dir
	if spec.Dir != "" && f.dir == "." {
		dir = filepath.Join(spec.BaseDir, spec.Dir)
		// The folder came from the task file, relative to it: say so,
		// not "--dir", which was not given.
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			what := "does not exist"
			if err == nil {
				what = "is not a folder"
			} else if !errors.Is(err, iofs.ErrNotExist) {
				what = err.Error()
			}
			return "", usagef("the task file's dir: %s (%s) %s: create it, fix dir: in the task file, or give --dir", spec.Dir, dir, what)
		}
		return dir, nil
	}
	if err := checkDir(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// checkDir checks a --dir. A path that does not exist and one that is not
// a folder are told apart: they are fixed differently.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return usagef("--dir %s: does not exist (create it, or name another folder)", dir)
	case err != nil:
		return usagef("--dir %s: %v", dir, err)
	case !fi.IsDir():
		return usagef("--dir %s: not a folder: name the folder the run may work in", dir)
	}
	return nil
}

// buildVerifier parses the rules (a rule that cannot run is a usage error
// before the run starts) and sets up the judge.
// A judge on another credential gets that credential's limiter; nil
// means the worker's.
func buildVerifier(mf modelSpec, spec *taskfile.Spec, worker *built, limiters *retry.Limiters) (*verify.Verifier, *retry.Limiter, *built, error) {
	v := &verify.Verifier{NoClaims: spec.Claims != nil && !*spec.Claims}
	for _, c := range spec.Checks {
		r, err := verify.ParseRule(c, spec.BaseDir)
		if err != nil {
			return nil, nil, nil, usageError(err) // it names the rule already
		}
		v.Rules = append(v.Rules, r)
	}
	if spec.NoJudge {
		return v, nil, nil, nil
	}
	jb, err := mf.judge(spec.JudgeModel, osGetenv)
	if err != nil {
		return nil, nil, nil, usageError(err)
	}
	if jb == nil {
		v.Judge = &verify.Judge{Model: worker.model, ModelName: worker.name, Rubric: spec.Rubric}
		return v, nil, worker, nil
	}
	v.Judge = &verify.Judge{Model: jb.model, ModelName: jb.name, Rubric: spec.Rubric}
	return v, limiters.For(jb.endpoint, jb.credential), jb, nil
}

// loadSchema reads and resolves a JSON Schema file.
func loadSchema(path string) (*jsonschema.Resolved, error) {
	if err := checkInputFile("--output-schema (task file: output_schema)", path, "a JSON Schema file"); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--output-schema: %w", err)
	}
	var sc jsonschema.Schema
	if err := json.Unmarshal(data, &sc); err != nil {
		return nil, fmt.Errorf("--output-schema %s: not a JSON Schema: %w", path, err)
	}
	res, err := sc.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("--output-schema %s: %w", path, err)
	}
	return res, nil
}

// notStarted explains a run that could not begin, with what to do: an
// earlier run that died in the workspace is exit 7, a state directory
// that cannot hold the state (one inside the workspace) a usage error.
func notStarted(err error, dir, stateDir string) error {
	if err, ok := ecoNotStarted(err); ok {
		return err
	}
	var unknown *gate.UnknownToolError
	switch {
	case errors.Is(err, sandbox.ErrConfig), errors.As(err, &unknown), errors.Is(err, runspec.ErrInvalid):
		// Asked for something that cannot be had: nothing ran.
		return usageError(err)
	case errors.Is(err, journal.ErrNeedsRecovery):
		paused, _ := lifecycle.Paused(lifecycle.Config{Dir: absDir(dir), StateBase: stateDir})
		if len(paused) > 0 {
			return &exitError{code: exitFor(agent.NeedsRecovery), err: fmt.Errorf(
				"run %s paused in %s and holds its changes; nothing was run.\ngo on with it: nightshift run --resume %s%s\nor undo it:    nightshift recover --dir %s%s",
				paused[0], absDir(dir), paused[0], stateArg(stateDir), absDir(dir), stateArg(stateDir))}
		}
		return &exitError{code: exitFor(agent.NeedsRecovery), err: fmt.Errorf(
			"%w\nnothing was run; restore the workspace with: nightshift recover --dir %s%s", err, absDir(dir), stateArg(stateDir))}
	case errors.Is(err, statedir.ErrUnusable):
		return usageError(err)
	case errors.Is(err, journal.ErrBusy):
		return busyError(err, "--dir")
	}
	return err
}

// busyError ends a run that could not begin because another one is
// active in its workspace: outcome busy, exit 12, and what to do, naming
// the other run's process, and the flag (other) that would give it a
// workspace of its own, if any.
func busyError(err error, other string) error {
	wait := "wait for it to end"
	var busy *journal.BusyError
	if errors.As(err, &busy) && len(busy.PIDs()) > 0 {
		wait = fmt.Sprintf("wait for it to end (or stop it: kill %s)", pids(busy.PIDs()))
	}
	if other != "" {
		wait += ", or give this run another " + other
	}
	return &exitError{code: exitFor(agent.Busy), err: fmt.Errorf("%w\nnothing was run; %s", err, wait)}
}

// finish ends the run and resume commands alike: the answer on stdout,
// the end of the run on stderr (printEnd), and the exit code its outcome
// asks for.
func finish(cmd *cobra.Command, res *lifecycle.Result, stateDir string) error {
	if res.Answer != "" {
		fmt.Fprintln(answerOut(cmd), res.Answer)
	}
	printEnd(res, stateDir, cmd.ErrOrStderr())
	return exitWith(exitFor(res.Outcome))
}

// printEnd tells the person what the end of the run did to the
// workspace when it went wrong, then sums the run up. Paths and errors
// name files a run made: each is escaped onto its line.
func printEnd(res *lifecycle.Result, stateDir string, w io.Writer) {
	if res.PatchErr != nil {
		fmt.Fprintf(w, "nightshift: patch: %s\n", esc(res.PatchErr))
	}
	if res.PruneErr != nil {
		fmt.Fprintf(w, "nightshift: %s\n", esc(res.PruneErr))
	}
	switch {
	case res.JournalErr != nil && !res.Kept:
		fmt.Fprintf(w, "nightshift: %s\nrun: nightshift recover --dir %s%s\n", esc(res.JournalErr), esc(res.Dir), stateArg(stateDir))
	case res.JournalErr != nil:
		fmt.Fprintf(w, "nightshift: %s\n", esc(res.JournalErr))
	}
	if res.Rollback != nil {
		for _, c := range res.Rollback.Conflicts {
			fmt.Fprintf(w, "nightshift: left as it is (changed by something else during the run): %s\n", esc(c))
		}
	}
	if res.RecordErr != nil {
		fmt.Fprintf(w, "nightshift: %s\n", esc(res.RecordErr))
	}
	printOutcome(&res.Result, w)
	if res.RecordErr == nil && res.RecordPath != "" {
		fmt.Fprintf(w, "nightshift: record of this run: %s\n", res.RecordPath)
	}
	if res.Suspended {
		fmt.Fprintf(w, "nightshift: paused with its changes kept; the workspace waits for one of:\n  go on:  nightshift run --resume %s%s%s\n  undo:   nightshift recover --dir %s%s\n",
			res.RunID, stateArg(stateDir), raise(res.Outcome), esc(res.Dir), stateArg(stateDir))
	}
}

// raise says which flag lifts the limit that paused a run.
func raise(o agent.Outcome) string {
	switch o {
	case agent.Budget:
		return " [--budget-usd X | --budget-tokens N]"
	case agent.Timeout:
		return " [--timeout D]"
	}
	return ""
}

// absDir is dir made absolute, for a command to copy.
func absDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// judgeBreaker is the circuit breaker of the judge's endpoint, nil
// without a judge.
func judgeBreaker(f *runFlags, spec *taskfile.Spec, judge *built) *breaker.Breaker {
	if judge == nil {
		return nil
	}
	return breakersFor(f.stateDir).For(judge.endpoint, judge.credential, breakerConfig(&spec.Spec))
}
