package reliability

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/batch"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// Condition is one way of running the tasks.
type Condition struct {
	// Name names the condition in the report ("clean", "faults"): a
	// word, since it names the condition's workspace folder too.
	Name string
	// Faults describes the condition's fault schedule in one line; ""
	// for none.
	Faults string
	// Run runs one task in its workspace, as a batch runs it
	// (batch.Agent's Run). Required.
	Run batch.RunFunc
	// Retries returns how many retries the run in the workspace dir
	// made (a Retries's Count). Default: none counted.
	Retries func(dir string) int
	// Injected returns the faults injected so far by kind, and Requests
	// the requests seen, when the condition runs through a fault proxy
	// (internal/proxy's Injected and Requests). Default: none.
	Injected func() map[string]int
	Requests func() int
}

// Config configures Run. Conditions is required; every other zero field
// takes its default.
type Config struct {
	// Runs is K, how many times each task runs under each condition.
	// Default 1.
	Runs int
	// Parallel is the most runs at once, as a batch's. Default
	// batch.DefaultParallel.
	Parallel int
	// WorkDir holds a folder per condition (WORK/clean, WORK/faults),
	// each holding that condition's workspaces and logs as a batch's
	// work folder does; those folders must be new or empty. It is made
	// when missing. Default: a new temporary folder
	// nightshift-reliability-*.
	WorkDir string
	// Progress receives each condition's progress, as a batch's.
	// Default: none.
	Progress io.Writer
	// Clock times the runs. Default clock.Real{}.
	Clock clock.Clock
	// Conditions are run one after another, in order, so that they do
	// not share a rate limit; at least one.
	Conditions []Condition
}

var conditionName = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

func (c *Config) validate() error {
	if len(c.Conditions) == 0 {
		return errors.New("reliability: no condition to run the tasks under")
	}
	seen := map[string]bool{}
	for _, cond := range c.Conditions {
		switch {
		case !conditionName.MatchString(cond.Name):
			return fmt.Errorf("reliability: condition %q: a name is a word of letters, digits, - and _", cond.Name)
		case seen[cond.Name]:
			return fmt.Errorf("reliability: two conditions are named %q", cond.Name)
		case cond.Run == nil:
			return fmt.Errorf("reliability: condition %s has no Run function", cond.Name)
		}
		seen[cond.Name] = true
	}
	if c.Runs < 0 {
		return fmt.Errorf("reliability: %d runs: want 1 or more", c.Runs)
	}
	return nil
}

// Run runs every task cfg.Runs times under each condition and reports
// the figures. It returns an error only when the runs cannot start (no
// condition, a work folder that cannot be made); a run that fails is a
// figure of the report. When ctx ends, the runs stop as a batch's do, and
// the report holds what ran.
func Run(ctx context.Context, cfg Config, specs []*taskfile.Spec) (*Report, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if len(specs) == 0 {
		return nil, errors.New("reliability: no tasks")
	}
	runs := max(cfg.Runs, 1)
	work, err := workDir(cfg.WorkDir)
	if err != nil {
		return nil, err
	}
	rep := newReport(specs, runs, work)
	// Each task's K runs are one batch's K tasks, one after another in
	// the list: the report gathers them back by their place.
	var all []*taskfile.Spec
	for _, s := range specs {
		for range runs {
			c := *s
			all = append(all, &c)
		}
	}
	for _, cond := range cfg.Conditions {
		if ctx.Err() != nil {
			break
		}
		sum, err := batch.Run(ctx, batch.Config{
			Parallel: cfg.Parallel,
			WorkDir:  filepath.Join(work, cond.Name),
			Run:      cond.Run,
			Progress: cfg.Progress,
			Clock:    cfg.Clock,
		}, all)
		if err != nil {
			return nil, err
		}
		info := ConditionInfo{Name: cond.Name, Faults: cond.Faults}
		if cond.Injected != nil {
			info.Injected = cond.Injected()
		}
		if cond.Requests != nil {
			info.Requests = cond.Requests()
		}
		rep.add(info, sum, runs, cond.Retries)
	}
	return rep, nil
}

// workDir makes the work folder, or a temporary one. The conditions'
// folders in it are the batches': each is refused there unless it is new
// or empty.
func workDir(dir string) (string, error) {
	if dir == "" {
		d, err := os.MkdirTemp("", "nightshift-reliability-")
		if err != nil {
			return "", fmt.Errorf("reliability: %w", err)
		}
		return d, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("reliability: %w", err)
	}
	return dir, nil
}

// Retries counts the retry events of each run, by its workspace folder.
// It is safe for concurrent use.
type Retries struct {
	mu sync.Mutex
	n  map[string]int
}

// NewRetries returns an empty count.
func NewRetries() *Retries { return &Retries{n: map[string]int{}} }

// Sink returns the sink that counts the retries of the run in dir: give
// it the run's events (event.Multi with its own sink).
func (r *Retries) Sink(dir string) event.Sink {
	return event.SinkFunc(func(e event.Event) {
		if e.Type == event.Retry {
			r.mu.Lock()
			r.n[dir]++
			r.mu.Unlock()
		}
	})
}

// Count returns the retries counted for the run in dir.
func (r *Retries) Count(dir string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n[dir]
}

// classOf sorts an outcome into done, unverified or failed, as a batch's
// summary does.
func classOf(o agent.Outcome) string {
	switch o {
	case agent.Done:
		return "done"
	case agent.Unverified:
		return "unverified"
	}
	return "failed"
}
