package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/statedir"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// runSettings is what `nightshift run` and batch record in a run's
// checkpoint (lifecycle.Config.Settings) beside the run spec, which the
// checkpoint keeps once, as the lifecycle read it (lifecycle.Checkpoint.Spec:
// recordedForm): the process's own settings, so that `nightshift run
// --resume RUN` builds the same configuration from anywhere. No key is
// recorded: they come from the environment, as they did.
type runSettings struct {
	// Spec is where a checkpoint written before the lifecycle kept the
	// spec (Checkpoint.Spec) held it, the flags laid over its task file:
	// read from such a checkpoint, never written.
	Spec      *taskfile.Spec `json:"spec,omitempty"`
	Events    string         `json:"events,omitempty"`
	KeepState time.Duration  `json:"keep_state"`
	Dir       string         `json:"dir"`
	BaseDir   string         `json:"base_dir"`
	// Inputs are the files the spec reads (its output schema, its json:
	// checks' schemas, its model table), as they were when the run
	// started: a resumed run is checked and priced by them, not by what
	// the worker may have written to those paths since.
	Inputs []recordedInput `json:"inputs,omitempty"`
	// Provider and Model are where a checkpoint written before the spec
	// held them kept the provider the environment chose and the model
	// name sent: read from such a checkpoint, never written.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
}

// recordedInput is one file a run's spec reads, kept in its checkpoint.
type recordedInput struct {
	// Key says which: output_schema, models_file, or check N (from 0).
	Key string `json:"key"`
	// Path is where it was read from; Content what it held.
	Path    string `json:"path"`
	Content []byte `json:"content"`
}

// settingsOf records the process's settings of a run about to start,
// and the files its spec reads as they are now (inputsOf). The spec
// itself is recorded once, by the lifecycle (cfg.Spec, recordedForm).
func settingsOf(f *runFlags, spec *taskfile.Spec, dir, model string) (json.RawMessage, error) {
	cp := *spec
	cp.Spec = recordedForm(spec, spec.Provider, model)
	s := runSettings{Events: absPath(f.events), KeepState: f.keepState, Dir: absPath(dir), BaseDir: absPath(spec.BaseDir)}
	s.Inputs = inputsOf(&cp)
	return json.Marshal(s)
}

// recordedForm is the spec of a run as the lifecycle reads it and its
// checkpoint records it (lifecycle.Checkpoint.Spec, the one record of
// it): spec's, with the provider the environment chose and the model
// name the run sends (a resume must not choose others because a key was
// set since), its paths made absolute, and its verify rounds in the
// lifecycle's terms (the CLI's 0, none, is its -1).
func recordedForm(spec *taskfile.Spec, provider, model string) runspec.Spec {
	cp := spec.Spec.Clone()
	cp.OutputSchema, cp.ModelsFile = absPath(cp.OutputSchema), absPath(cp.ModelsFile)
	cp.Scenario, cp.OtelFile = absPath(cp.Scenario), absPath(cp.OtelFile)
	cp.ModelName = model
	if p, err := resolveProvider(provider, osGetenv); err == nil {
		cp.Provider = p
	}
	cp.MaxVerifyRounds = verifyRounds(cp.MaxVerifyRounds)
	return cp
}

func absPath(p string) string {
	if p == "" {
		return ""
	}
	return absDir(p)
}

// resumeFlags are the flags that may come with --resume: the limits a
// paused run may be given anew, and where to find it.
var resumeFlags = []string{"resume", "budget-usd", "budget-tokens", "timeout", "stall", "call-timeout", "state-dir", "dir"}

// runResume is `nightshift run --resume RUN`: the run's recorded
// configuration, with new budget and time limits if given, goes on from
// its checkpoint.
func runResume(cmd *cobra.Command, f *runFlags, task string) error {
	if task != "" {
		return usagef("--resume goes on with the run's own task: drop %q", task)
	}
	var others []string
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if !slices.Contains(resumeFlags, fl.Name) {
			others = append(others, "--"+fl.Name)
		}
	})
	if len(others) > 0 {
		return usagef("--resume reuses the run's recorded configuration; only --budget-usd, --budget-tokens, --timeout, --stall and --call-timeout may change: drop %s", strings.Join(others, ", "))
	}
	dir, ck, err := findPaused(cmd, f)
	if err != nil {
		return err
	}
	g, spec, err := recordedConfig(ck, f.stateDir)
	if err != nil {
		return usagef("run %s has no configuration recorded by nightshift run (a night run?): undo it with: nightshift recover --dir %s%s", f.resume, dir, stateArg(f.stateDir))
	}
	if err := newLimits(cmd.Flags().Changed, &f.spec, spec); err != nil {
		return err
	}
	cfg, err := runConfig(g, spec, limitersFor(g.stateDir, &spec.Spec))
	if err != nil {
		return err
	}
	cfg.Dir = dir
	if cfg.Settings, err = settingsOf(g, spec, dir, cfg.Spec.ModelName); err != nil {
		return err
	}
	done, err := g.attach(cmd, &cfg, &spec.Spec)
	if err != nil {
		return err
	}
	defer done()
	res, err := lifecycle.Resume(cmd.Context(), cfg, f.resume)
	if err != nil {
		return notResumed(err, f.resume, dir, f.stateDir)
	}
	return finish(cmd, res, f.stateDir)
}

// inputsOf reads the files spec reads, for its checkpoint. A file that
// cannot be read now was read by the run's start already, or the run
// could not have started: it is left out.
func inputsOf(spec *taskfile.Spec) []recordedInput {
	var out []recordedInput
	add := func(key, path string) {
		if path == "" {
			return
		}
		if data, err := os.ReadFile(path); err == nil {
			out = append(out, recordedInput{Key: key, Path: path, Content: data})
		}
	}
	add("output_schema", spec.OutputSchema)
	add("models_file", spec.ModelsFile)
	for i, c := range spec.Checks {
		if _, schema, ok := jsonSchemaOf(c, spec.BaseDir); ok {
			add(fmt.Sprintf("check %d", i), schema)
		}
	}
	return out
}

// jsonSchemaOf returns a json:PATH:SCHEMA check's PATH and its schema
// file's path (relative paths read from base).
func jsonSchemaOf(check, base string) (path, schema string, ok bool) {
	kind, rest, _ := strings.Cut(strings.TrimSpace(check), ":")
	if strings.TrimSpace(kind) != "json" {
		return "", "", false
	}
	path, schema, ok = strings.Cut(rest, ":")
	schema = strings.TrimSpace(schema)
	if !ok || schema == "" {
		return "", "", false
	}
	if !filepath.IsAbs(schema) {
		schema = filepath.Join(base, schema)
	}
	return path, absPath(schema), true
}

// restoreInputs writes the files a paused run's checkpoint kept into a
// private folder of its state (outside the workspace, where no command
// of the run reaches) and points spec at them.
func restoreInputs(s *runSettings, spec *taskfile.Spec, stateBase, dir, runID string) error {
	if len(s.Inputs) == 0 {
		return nil
	}
	base, err := statedir.Base(stateBase)
	if err != nil {
		return err
	}
	state, err := statedir.Workspace(base, dir)
	if err != nil {
		return err
	}
	folder := filepath.Join(state, "inputs", runID)
	if err := statedir.MkdirPrivate(folder); err != nil {
		return err
	}
	for i, in := range s.Inputs {
		path := filepath.Join(folder, fmt.Sprintf("%d-%s", i, filepath.Base(in.Path)))
		if err := statedir.WriteFile(path, in.Content); err != nil {
			return err
		}
		switch {
		case in.Key == "output_schema":
			spec.OutputSchema = path
		case in.Key == "models_file":
			spec.ModelsFile = path
		case strings.HasPrefix(in.Key, "check "):
			var n int
			if _, err := fmt.Sscanf(in.Key, "check %d", &n); err == nil && n >= 0 && n < len(spec.Checks) {
				if p, _, ok := jsonSchemaOf(spec.Checks[n], spec.BaseDir); ok {
					spec.Checks[n] = "json:" + p + ":" + path
				}
			}
		}
	}
	return nil
}

// errNoSettings is a checkpoint without the configuration of a run that
// nightshift run or batch started.
var errNoSettings = errors.New("no recorded configuration")

// recordedConfig rebuilds, from a paused run's checkpoint, the spec its
// configuration was built from and the process's settings beside it.
func recordedConfig(ck *lifecycle.Checkpoint, stateDir string) (*runFlags, *taskfile.Spec, error) {
	var s runSettings
	if len(ck.Settings) == 0 || json.Unmarshal(ck.Settings, &s) != nil {
		return nil, nil, errNoSettings
	}
	spec := s.Spec // a checkpoint of an earlier version's
	if spec == nil {
		if ck.Spec == nil {
			return nil, nil, errNoSettings
		}
		spec = &taskfile.Spec{Task: ck.Task, Spec: ck.Spec.Clone()}
		// The lifecycle's -1 (none) is the CLI's 0.
		spec.MaxVerifyRounds = max(spec.MaxVerifyRounds, 0)
	}
	spec.BaseDir = s.BaseDir
	spec.Provider, spec.ModelName = cmp.Or(spec.Provider, s.Provider), cmp.Or(spec.ModelName, s.Model)
	spec.Checks = slices.Clone(spec.Checks)
	if err := restoreInputs(&s, spec, stateDir, s.Dir, ck.Run); err != nil {
		return nil, nil, err
	}
	return &runFlags{dir: s.Dir, events: s.Events, keepState: s.KeepState, stateDir: stateDir}, spec, nil
}

// newLimits gives a resumed run the budget and time limits given anew
// with --resume (given's, where changed says they were given).
func newLimits(changed func(string) bool, given *runspec.Spec, spec *taskfile.Spec) error {
	if changed("budget-usd") {
		spec.BudgetUSD = given.BudgetUSD
	}
	if changed("budget-tokens") {
		spec.BudgetTokens = given.BudgetTokens
	}
	if changed("timeout") {
		spec.Timeout = given.Timeout
	}
	if changed("stall") {
		spec.Stall = clonePtr(given.Stall)
	}
	if changed("call-timeout") {
		spec.CallTimeout = clonePtr(given.CallTimeout)
	}
	return checkBudgets(spec)
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// findPaused finds the paused run's workspace and checkpoint: in --dir
// when it is given, else by its ID in the state directory.
func findPaused(cmd *cobra.Command, f *runFlags) (string, *lifecycle.Checkpoint, error) {
	dir := f.dir
	if !cmd.Flags().Changed("dir") {
		d, _, err := lifecycle.FindRun(f.stateDir, f.resume)
		if errors.Is(err, lifecycle.ErrNoCheckpoint) {
			base, _ := statedir.Base(f.stateDir)
			return "", nil, usagef("no paused run %q in the state directory %s: it ended, was recovered, or ran with another --state-dir (give that one, or the run's workspace as --dir DIR)", f.resume, base)
		}
		if err != nil {
			return "", nil, usagef("%v: no paused run of that ID (its workspace: --dir DIR)", err)
		}
		dir = d
	}
	ck, err := lifecycle.ReadCheckpoint(lifecycle.Config{Dir: absDir(dir), StateBase: f.stateDir}, f.resume)
	if err != nil {
		return "", nil, usagef("%v: nothing to resume", err)
	}
	return absDir(dir), ck, nil
}

// notResumed explains a resume that could not begin.
func notResumed(err error, run, dir, stateDir string) error {
	switch {
	case errors.Is(err, journal.ErrNotPending), errors.Is(err, lifecycle.ErrNoCheckpoint):
		return usagef("%v: run %s is not paused in %s (it ended, or was recovered)", err, run, filepath.Clean(dir))
	case errors.Is(err, journal.ErrBusy):
		// The paused run's own workspace: another --dir is no way out.
		return busyError(err, "")
	case errors.Is(err, journal.ErrDamaged):
		return &exitError{code: exitFor(agent.NeedsRecovery), err: fmt.Errorf("%w\nundo it with: nightshift recover --dir %s%s", err, dir, stateArg(stateDir))}
	}
	return notStarted(err, dir, stateDir)
}
