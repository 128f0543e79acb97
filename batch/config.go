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
	// Continue, when set, goes on with an interrupted batch in WorkDir,
	// which must then exist (`batch --resume`): a task whose workspace is
	// there is handed to Continue instead of being prepared and run, and
	// Continue goes on with it (a paused run) or returns how it ended
	// before (it is not run twice); a task whose workspace is not there
	// never started, and runs as in a new batch. Default nil: a new batch,
	// in an empty WorkDir.
	Continue ContinueFunc
	// Started, when set, is called with the work folder once it is made,
	// before any task starts, in a new batch (not a resumed one): where
	// the command records what `batch --resume` needs. An error stops
	// the batch before it starts.
	Started func(work string) error
}

// ContinueFunc goes on with a task of an interrupted batch in its
// workspace dir, which the earlier batch made: it resumes a paused run,
// or reports how the task ended then (TaskResult.Earlier). started false
// says the task had not begun there after all (its workspace holds no run
// of it): the batch then starts it afresh in a new workspace.
type ContinueFunc func(ctx context.Context, spec *taskfile.Spec, dir string) (res *agent.Result, earlier, started bool)
