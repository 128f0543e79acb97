package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/statedir"
)

// batchResume is the value of a bare `batch --resume`.
const batchResume = "batch"

// batchResumeFlags are the flags that may come with `batch --resume`:
// where the batch is, and the limits its paused tasks may be given anew.
// Its other settings are those its tasks recorded.
var batchResumeFlags = []string{"resume", "tasks", "work", "state-dir", "parallel", "budget-usd", "budget-tokens", "timeout", "stall", "call-timeout"}

// checkBatchResume checks `batch --resume`: no run ID, the interrupted
// batch's --tasks and --work, and no other setting, since each task
// goes on with the configuration it recorded.
func checkBatchResume(cmd *cobra.Command, f *batchFlags) error {
	if f.resume != batchResume {
		return usagef("batch --resume takes no run ID: it goes on with the interrupted batch in --work (one paused run alone: nightshift run --resume %s)", f.resume)
	}
	if f.tasks == "" || f.work == "" {
		return usagef("batch --resume needs the interrupted batch's --tasks FILE and --work DIR")
	}
	var others []string
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if !slices.Contains(batchResumeFlags, fl.Name) {
			others = append(others, "--"+fl.Name)
		}
	})
	if len(others) > 0 {
		return usagef("batch --resume goes on with the configuration each task recorded; only --budget-usd, --budget-tokens, --timeout, --stall, --call-timeout and --parallel may be given: drop %s", strings.Join(others, ", "))
	}
	return nil
}

// continueBatchTask goes on with one task of an interrupted batch in its
// workspace dir: a paused run is resumed from its checkpoint, with the
// configuration it recorded (and the limits given anew); a task whose
// run ended is reported as it ended, never run again. started is false
// when dir holds no run of the task at all.
func continueBatchTask(ctx context.Context, changed func(string) bool, f *batchFlags, dir string, limiters *retry.Limiters) (res *agent.Result, earlier, started bool) {
	dir = absDir(dir)
	fail := func(err error) (*agent.Result, bool, bool) {
		return &agent.Result{Outcome: agent.Failed, Reason: err.Error(), Err: err}, false, true
	}
	paused, err := lifecycle.Paused(lifecycle.Config{Dir: dir, StateBase: f.stateDir})
	if err != nil {
		return fail(err)
	}
	if len(paused) == 0 {
		rec, err := lastRecord(f.stateDir, dir)
		if err != nil {
			return nil, false, false
		}
		return &agent.Result{Outcome: rec.Outcome, Reason: rec.Reason, Answer: rec.Answer, Steps: rec.Steps, Usage: rec.Usage, Cost: rec.Cost}, true, true
	}
	run := paused[0]
	ck, err := lifecycle.ReadCheckpoint(lifecycle.Config{Dir: dir, StateBase: f.stateDir}, run)
	if err != nil {
		return fail(err)
	}
	g, spec, err := recordedConfig(ck, f.stateDir)
	if err != nil {
		return fail(fmt.Errorf("run %s recorded no configuration to go on with: undo it with nightshift recover --dir %s%s", run, dir, stateArg(f.stateDir)))
	}
	if err := newLimits(changed, &f.spec, spec); err != nil {
		return fail(err)
	}
	cfg, err := runConfig(g, spec, limiters)
	if err != nil {
		return fail(err)
	}
	cfg.Dir, cfg.Redact = dir, redactorOf(ctx)
	if cfg.Settings, err = settingsOf(g, spec, dir, cfg.Spec.ModelName); err != nil {
		return fail(err)
	}
	log, err := os.OpenFile(dir+".log", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fail(err)
	}
	defer log.Close()
	w := redactorOf(ctx).Writer(log)
	fmt.Fprintf(w, "nightshift: batch --resume: going on with run %s\n", run)
	cfg.Events = event.NewText(w)
	cfg.Warn = func(line string) { warnf(w, "%s", line) }
	lres, err := lifecycle.Resume(ctx, cfg, run)
	if err != nil {
		return fail(notResumed(err, run, dir, f.stateDir))
	}
	printEnd(lres, f.stateDir, w)
	return &lres.Result, false, true
}

// lastRecord is the record of the latest run that ended in the
// workspace dir.
func lastRecord(stateBase, dir string) (*agent.Record, error) {
	base, err := statedir.Base(stateBase)
	if err != nil {
		return nil, err
	}
	state, err := statedir.WorkspaceDir(base, dir)
	if err != nil {
		return nil, err
	}
	names, err := filepath.Glob(filepath.Join(state, "runs", "*.json"))
	if err != nil || len(names) == 0 {
		return nil, errors.New("no run record")
	}
	// Run IDs start with their time: the last name is the latest run.
	slices.Sort(names)
	data, err := os.ReadFile(names[len(names)-1])
	if err != nil {
		return nil, err
	}
	var rec agent.Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, err
	}
	return &rec, nil
}

// batchRecord is the file in a batch's work folder that keeps the flags
// it ran with, for `batch --resume`: its never-started tasks start with
// them, as they would have.
const batchRecord = "batch.json"

// pathFlags are the flags whose values are paths, recorded absolute.
var pathFlags = []string{"scenario", "models", "otel-file"}

// recordBatch writes the flags given to the batch into its work folder.
func recordBatch(fl *pflag.FlagSet, work string) error {
	given := map[string][]string{}
	fl.Visit(func(f *pflag.Flag) {
		switch f.Name {
		case "resume", "tasks", "work", "state-dir":
			return // where the batch is: given again with --resume
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			given[f.Name] = sv.GetSlice()
			return
		}
		v := f.Value.String()
		if slices.Contains(pathFlags, f.Name) && v != "" {
			v = absPath(v)
		}
		given[f.Name] = []string{v}
	})
	data, err := json.MarshalIndent(given, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(work, batchRecord), append(data, '\n'), 0o644)
}

// replayBatch sets the flags the interrupted batch in work recorded, but
// those given again now (the limits a resumed batch may raise).
func replayBatch(fl *pflag.FlagSet, work string) error {
	data, err := os.ReadFile(filepath.Join(work, batchRecord))
	if err != nil {
		return usagef("batch --resume: %s holds no %s (was it made by nightshift batch --work?): %v", work, batchRecord, errors.Unwrap(err))
	}
	var given map[string][]string
	if err := json.Unmarshal(data, &given); err != nil {
		return usagef("batch --resume: %s: %v", filepath.Join(work, batchRecord), err)
	}
	for name, vals := range given {
		f := fl.Lookup(name)
		if f == nil || f.Changed {
			continue
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			if err := sv.Replace(vals); err != nil {
				return usagef("batch --resume: --%s: %v", name, err)
			}
			f.Changed = true
			continue
		}
		for _, v := range vals {
			if err := fl.Set(name, v); err != nil {
				return usagef("batch --resume: --%s: %v", name, err)
			}
		}
	}
	return nil
}
