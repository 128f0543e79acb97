package batch

import (
	"context"
	"io"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// DefaultParallel is how many tasks run at once when Config.Parallel is
// zero.
const DefaultParallel = 4

// RunFunc runs one task in its workspace folder dir and reports how it
// ended. It is called from several goroutines at once. A task that cannot
// even start (a bad check, a model that cannot be built) is a Result with
// an outcome other than done and the reason in words, not a panic.
type RunFunc func(ctx context.Context, spec *taskfile.Spec, dir string) *agent.Result

// Config configures a batch. Run is required; every other zero field takes
// its default.
type Config struct {
	// Parallel is the most tasks running at once. Default DefaultParallel.
	Parallel int
	// WorkDir is the folder under which each task gets its workspace,
	// named after its position and name (007-fix-readme). It is created
	// when missing. Default: a new temporary folder nightshift-batch-*.
	WorkDir string
	// Run runs one task; AgentRunner (or an Agent's Run) runs each
	// through the run lifecycle. Required.
	Run RunFunc
	// Progress receives the progress of the batch. Default: none.
	Progress io.Writer
	// Live redraws a count and a bar on one line of Progress (for a
	// terminal) instead of writing one plain line per finished task.
	// Default false: plain lines, for logs and pipes.
	Live bool
	// Clock times the tasks and the batch. Default clock.Real{}.
	Clock clock.Clock
}
