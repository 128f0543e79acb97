package batch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// errNoRun is returned for a Config without a Run function.
var errNoRun = errors.New("batch: no Run function configured")

// Run runs every task, at most cfg.Parallel at once, each in a fresh
// workspace under cfg.WorkDir, and returns how each ended. It returns an
// error only when the batch cannot start (no Run function, a WorkDir
// that cannot be made or is not empty); a task that fails is a line of
// the Summary. When ctx ends, the tasks running stop as their RunFunc
// sees it and the tasks not yet started end as interrupted.
func Run(ctx context.Context, cfg Config, specs []*taskfile.Spec) (*Summary, error) {
	if cfg.Run == nil {
		return nil, errNoRun
	}
	clk := cmp.Or[clock.Clock](cfg.Clock, clock.Real{})
	parallel := cfg.Parallel
	if parallel <= 0 {
		parallel = DefaultParallel
	}
	work, err := workDir(cfg.WorkDir, cfg.Continue != nil)
	if err != nil {
		return nil, err
	}
	if cfg.Started != nil && cfg.Continue == nil {
		if err := cfg.Started(work); err != nil {
			return nil, fmt.Errorf("batch: %w", err)
		}
	}
	sum := &Summary{WorkDir: work, Tasks: make([]TaskResult, len(specs))}
	prog := newProgress(cfg.Progress, cfg.Live, len(specs), clk)
	start := clk.Now()

	slots := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, spec := range specs {
		dir := filepath.Join(work, taskFolder(i, len(specs), spec.Name))
		if !take(ctx, slots) {
			sum.Tasks[i] = notStarted(spec, dir)
			prog.finished(sum.Tasks[i], false)
			continue
		}
		prog.started()
		wg.Go(func() {
			defer func() { <-slots }()
			sum.Tasks[i] = runOrContinue(ctx, cfg, clk, spec, dir)
			prog.finished(sum.Tasks[i], true)
		})
	}
	wg.Wait()
	prog.end()
	sum.Elapsed = clk.Now().Sub(start)
	sum.count()
	return sum, nil
}

// take waits for a free slot and reports whether the task may start: not
// once ctx has ended, even when a slot is free at the same moment.
func take(ctx context.Context, slots chan struct{}) bool {
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	if ctx.Err() != nil {
		<-slots
		return false
	}
	return true
}

// workDir makes (or checks) the folder the workspaces go under. A given
// folder must be empty: a workspace left by an earlier batch is evidence,
// not scratch space; resumed says it is that batch's, which must exist.
func workDir(dir string, resumed bool) (string, error) {
	if resumed {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("batch: work folder %s of the interrupted batch is not there: give the --work it ran with", dir)
		}
		return dir, nil
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "nightshift-batch-")
		if err != nil {
			return "", fmt.Errorf("batch: %w", err)
		}
		return d, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("batch: %w", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("batch: %w", err)
	}
	if len(ents) > 0 {
		return "", fmt.Errorf("batch: work folder %s is not empty: give a new or empty folder", dir)
	}
	return dir, nil
}

// runOne prepares a task's workspace and runs it.
func runOne(ctx context.Context, run RunFunc, clk clock.Clock, spec *taskfile.Spec, dir string) TaskResult {
	tr := TaskResult{Name: spec.Name, Dir: dir}
	started := clk.Now()
	if err := prepare(spec, dir); err != nil {
		tr.Result = &agent.Result{Outcome: agent.Failed, Reason: err.Error(), Err: err}
	} else if tr.Result = run(ctx, spec, dir); tr.Result == nil {
		tr.Result = &agent.Result{Outcome: agent.Failed, Reason: "the task's run returned no result"}
	}
	tr.Elapsed = clk.Now().Sub(started)
	return tr
}

// runOrContinue runs a task, or, in a resumed batch, goes on with it
// where its workspace is already there.
func runOrContinue(ctx context.Context, cfg Config, clk clock.Clock, spec *taskfile.Spec, dir string) TaskResult {
	if cfg.Continue != nil {
		if _, err := os.Stat(dir); err == nil {
			started := clk.Now()
			res, earlier, ok := cfg.Continue(ctx, spec, dir)
			if ok {
				if res == nil {
					res = &agent.Result{Outcome: agent.Failed, Reason: "the task's run returned no result"}
				}
				return TaskResult{Name: spec.Name, Dir: dir, Result: res, Earlier: earlier, Elapsed: clk.Now().Sub(started)}
			}
			// Its workspace holds no run of it: made, then interrupted
			// before its first step. It starts afresh.
			if err := os.RemoveAll(dir); err != nil {
				return TaskResult{Name: spec.Name, Dir: dir, Result: &agent.Result{Outcome: agent.Failed, Reason: err.Error(), Err: err}}
			}
		}
	}
	return runOne(ctx, cfg.Run, clk, spec, dir)
}

// notStarted is the result of a task the batch never reached.
func notStarted(spec *taskfile.Spec, dir string) TaskResult {
	// It spent nothing: $0, not an unknown cost that would make the
	// batch's total unknown.
	return TaskResult{Name: spec.Name, Dir: dir, NotStarted: true, Result: &agent.Result{
		Outcome: agent.Interrupted,
		Reason:  "not started: the batch was interrupted",
		Cost:    models.USD(0),
	}}
}
