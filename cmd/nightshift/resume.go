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
	"github.com/nightshift-dev/nightshift/statedir"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// runSettings is what `nightshift run` records in a run's checkpoint
// (lifecycle.Config.Settings): everything its configuration was built
// from, paths made absolute, so that `nightshift run --resume RUN` builds
// the same configuration from anywhere. No key is recorded: they come
// from the environment, as they did.
type runSettings struct {
	Provider       string         `json:"provider"`
	Model          string         `json:"model,omitempty"`
	BaseURL        string         `json:"base_url,omitempty"`
	Scenario       string         `json:"scenario,omitempty"`
	Stream         bool           `json:"stream,omitempty"`
	MaxTokensField string         `json:"max_tokens_field,omitempty"`
	Stall          time.Duration  `json:"stall"`
	CallTimeout    time.Duration  `json:"call_timeout"`
	Backoff        time.Duration  `json:"backoff"`
	RetryBudget    time.Duration  `json:"retry_budget"`
	RPM            int            `json:"rpm,omitempty"`
	TPM            int            `json:"tpm,omitempty"`
	Events         string         `json:"events,omitempty"`
	Keep           bool           `json:"keep,omitempty"`
	KeepState      time.Duration  `json:"keep_state"`
	Dir            string         `json:"dir"`
	BaseDir        string         `json:"base_dir"`
	Spec           *taskfile.Spec `json:"spec"`
	// Eco are the ecosystem's flags (--mcp, --mcp-class, --mcp-env, --subagents,
	// --subagent-steps, --memory, --otel…): a resumed run has the tools
	// and the traces it started with.
	Eco ecoSettings `json:"eco"`
	// Inputs are the files the spec reads (its output schema, its json:
	// checks' schemas, its model table), as they were when the run
	// started: a resumed run is checked and priced by them, not by what
	// the worker may have written to those paths since.
	Inputs []recordedInput `json:"inputs,omitempty"`
}

// recordedInput is one file a run's spec reads, kept in its checkpoint.
type recordedInput struct {
	// Key says which: output_schema, models_file, or check N (from 0).
	Key string `json:"key"`
	// Path is where it was read from; Content what it held.
	Path    string `json:"path"`
	Content []byte `json:"content"`
}

// ecoSettings are ecoFlags as a run's settings record them.
type ecoSettings struct {
	MCP           []string `json:"mcp,omitempty"`
	MCPClass      []string `json:"mcp_class,omitempty"`
	MCPEnv        []string `json:"mcp_env,omitempty"`
	MCPTrust      []string `json:"mcp_trust,omitempty"`
	Subagents     bool     `json:"subagents,omitempty"`
	SubagentSteps int      `json:"subagent_steps,omitempty"`
	Memory        bool     `json:"memory,omitempty"`
	Otel          bool     `json:"otel,omitempty"`
	OtelFile      string   `json:"otel_file,omitempty"`
	OtelContent   bool     `json:"otel_content,omitempty"`
}

// settingsOf records the configuration of a run about to start.
func settingsOf(f *runFlags, spec *taskfile.Spec, dir, model string) (json.RawMessage, error) {
	s := runSettings{
		Provider: f.provider, Model: model, BaseURL: f.baseURL, Scenario: absPath(f.scenario),
		Stream: f.stream, MaxTokensField: f.maxTokensField, Stall: f.stall, CallTimeout: f.callTimeout,
		Backoff: f.backoff, RetryBudget: f.retryBudget, RPM: f.rpm, TPM: f.tpm,
		Events: absPath(f.events), Keep: f.keep, KeepState: f.keepState,
		Dir: absPath(dir), BaseDir: absPath(spec.BaseDir),
		Eco: ecoSettings{MCP: f.eco.mcp, MCPClass: f.eco.mcpClass, MCPEnv: f.eco.mcpEnv, MCPTrust: f.eco.mcpTrust, Subagents: f.eco.subagents,
			SubagentSteps: f.eco.subagentSteps, Memory: f.eco.memory,
			Otel: f.eco.otel, OtelFile: absPath(f.eco.otelFile), OtelContent: f.eco.otelContent},
	}
	cp := *spec
	cp.OutputSchema, cp.ModelsFile = absPath(cp.OutputSchema), absPath(cp.ModelsFile)
	s.Spec = &cp
	s.Inputs = inputsOf(&cp)
	if s.Provider == "" {
		// The provider the environment chose: a resume must not choose
		// another because a key was set since.
		if p, err := resolveProvider("", osGetenv); err == nil {
			s.Provider = p
		}
	}
	return json.Marshal(s)
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
	if err := newLimits(cmd.Flags().Changed, f, g, spec); err != nil {
		return err
	}
	cfg, err := runConfig(g, spec, g.limiters())
	if err != nil {
		return err
	}
	cfg.Dir = dir
	if cfg.Settings, err = settingsOf(g, spec, dir, cfg.ModelName); err != nil {
		return err
	}
	done, err := g.attach(cmd, &cfg)
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

// recordedConfig rebuilds, from a paused run's checkpoint, the flags and
// the spec its configuration was built from.
func recordedConfig(ck *lifecycle.Checkpoint, stateDir string) (*runFlags, *taskfile.Spec, error) {
	var s runSettings
	if len(ck.Settings) == 0 || json.Unmarshal(ck.Settings, &s) != nil || s.Spec == nil {
		return nil, nil, errNoSettings
	}
	spec := s.Spec
	spec.BaseDir = s.BaseDir
	spec.Checks = slices.Clone(spec.Checks)
	if err := restoreInputs(&s, spec, stateDir, s.Dir, ck.Run); err != nil {
		return nil, nil, err
	}
	return s.flags(stateDir), spec, nil
}

// newLimits gives a resumed run the budget and time limits given anew
// with --resume (f's, where changed says they were given).
func newLimits(changed func(string) bool, f, g *runFlags, spec *taskfile.Spec) error {
	if changed("budget-usd") {
		spec.BudgetUSD = f.budgetUSD
	}
	if changed("budget-tokens") {
		spec.BudgetTokens = f.budgetTokens
	}
	if changed("timeout") {
		spec.Timeout = taskfile.Duration(f.timeout)
	}
	if changed("stall") {
		g.stall = f.stall
	}
	if changed("call-timeout") {
		g.callTimeout = f.callTimeout
	}
	return checkBudgets(spec)
}

// flags rebuilds the flags a run was started with.
func (s runSettings) flags(stateDir string) *runFlags {
	return &runFlags{
		modelFlags: modelFlags{provider: s.Provider, model: s.Model, baseURL: s.BaseURL, scenario: s.Scenario,
			stream: s.Stream, maxTokensField: s.MaxTokensField, stall: s.Stall},
		dir: s.Dir, backoff: s.Backoff, retryBudget: s.RetryBudget, rpm: s.RPM, tpm: s.TPM,
		events: s.Events, keep: s.Keep, keepState: s.KeepState, callTimeout: s.CallTimeout,
		stateDir: stateDir, resume: "",
		eco: ecoFlags{mcp: s.Eco.MCP, mcpClass: s.Eco.MCPClass, mcpEnv: s.Eco.MCPEnv, mcpTrust: s.Eco.MCPTrust, subagents: s.Eco.Subagents,
			subagentSteps: cmp.Or(s.Eco.SubagentSteps, lifecycle.DefaultSubagentSteps), memory: s.Eco.Memory,
			otel: s.Eco.Otel, otelFile: s.Eco.OtelFile, otelContent: s.Eco.OtelContent},
	}
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
