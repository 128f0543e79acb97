package batch

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/llm/models"
)

// TaskResult is how one task of a batch ended.
type TaskResult struct {
	// Name is the task's name (taskfile.Spec.Name).
	Name string
	// Dir is the task's workspace, left behind for inspection.
	Dir string
	// Result is the run's result; never nil.
	Result *agent.Result
	// Elapsed is how long the task took, its workspace copy included.
	Elapsed time.Duration
	// NotStarted is set for a task the batch never reached (it was
	// interrupted first): it spent nothing, and `batch --resume` starts
	// it.
	NotStarted bool
	// Earlier is set, in a resumed batch (Config.Continue), for a task
	// that had ended in the batch that was interrupted: it was not run
	// again, and Result is how it ended then.
	Earlier bool
}

// Paused reports whether the task paused with its changes kept: its
// budget, its time limit, its provider's outage or an interrupt stopped it after it started
// (`nightshift run --resume`, or `batch --resume`, goes on with it).
func (t TaskResult) Paused() bool {
	switch t.Result.Outcome {
	case agent.Budget, agent.Timeout, agent.Unavailable, agent.Interrupted:
		return !t.NotStarted
	}
	return false
}

// Summary is how a batch ended.
type Summary struct {
	// WorkDir holds the tasks' workspaces.
	WorkDir string
	// Tasks are the tasks' results, in the order they were given.
	Tasks []TaskResult
	// Done, Unverified, Paused, NotStarted and Failed count the tasks by
	// how they ended: done; unverified (the verifier never passed it: a
	// person must look); paused by a budget, a time limit or an
	// interrupt, its changes kept to go on with; never started (the
	// batch was interrupted first); and every other outcome.
	Done, Unverified, Paused, NotStarted, Failed int
	// Unavailable counts the paused tasks whose provider was down (their
	// endpoint's breaker stayed open past the retry budget): they go on
	// once it is back, with nothing to raise.
	Unavailable int
	// FailsByCheck counts the verifier's FAILs over all tasks by the check
	// that decided them, so a check that fails everywhere stands out.
	FailsByCheck map[string]int
	// Elapsed is the batch's wall time.
	Elapsed time.Duration
}

// AllDone reports whether every task ended done.
func (s *Summary) AllDone() bool { return s.Done == len(s.Tasks) }

// Outcome is the batch's outcome: done when every task ended done,
// not-all-done otherwise.
func (s *Summary) Outcome() agent.Outcome {
	if s.AllDone() {
		return agent.Done
	}
	return agent.NotAllDone
}

// count fills the counts from the tasks.
func (s *Summary) count() {
	s.Done, s.Unverified, s.Paused, s.NotStarted, s.Failed, s.Unavailable = 0, 0, 0, 0, 0, 0
	s.FailsByCheck = map[string]int{}
	for _, t := range s.Tasks {
		switch {
		case t.NotStarted:
			s.NotStarted++
		case t.Paused():
			s.Paused++
			if t.Result.Outcome == agent.Unavailable {
				s.Unavailable++
			}
		case t.Result.Outcome == agent.Done:
			s.Done++
		case t.Result.Outcome == agent.Unverified:
			s.Unverified++
		default:
			s.Failed++
		}
		for c, n := range t.Result.FailsByCheck {
			s.FailsByCheck[c] += n
		}
	}
}

// maxReason bounds a reason in the table; the run record has it whole.
const maxReason = 120

// WriteTable writes the summary for a person: one row per task (the
// reason of each that did not end done), the counts, the FAILs by check
// and where the workspaces are.
func (s *Summary) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tOUTCOME\tSTEPS\tTIME\tCOST\tREASON")
	total := models.USD(0)
	for _, t := range s.Tasks {
		reason, outcome := "", string(t.Result.Outcome)
		if t.Result.Outcome != agent.Done {
			reason = oneLine(t.Result.Reason, maxReason)
		}
		if t.NotStarted {
			outcome = "not-started"
		}
		if t.Earlier {
			// Ended before the batch was resumed: not run again.
			outcome += " (earlier)"
		}
		total = total.Add(t.Result.Cost)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", t.Name, outcome, t.Result.Steps, roundDur(t.Elapsed), t.Result.Cost, reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	noun := "tasks"
	if len(s.Tasks) == 1 {
		noun = "task"
	}
	// Paused and never-started tasks are told apart from failed ones:
	// both go on with `batch --resume`, and a never-started one spent
	// nothing.
	stopped := ""
	if s.Paused > 0 || s.NotStarted > 0 {
		stopped = fmt.Sprintf(" · paused %d · not started %d", s.Paused, s.NotStarted)
	}
	if s.Unavailable > 0 {
		// Paused by an outage, not by a limit of their own: told apart,
		// since raising a budget would not help them.
		stopped = fmt.Sprintf(" · paused %d (unavailable %d) · not started %d", s.Paused, s.Unavailable, s.NotStarted)
	}
	fmt.Fprintf(w, "\ndone %d · unverified %d · failed %d%s · %d %s in %s · cost %s\n",
		s.Done, s.Unverified, s.Failed, stopped, len(s.Tasks), noun, roundDur(s.Elapsed), total)
	if len(s.FailsByCheck) > 0 {
		fmt.Fprintf(w, "FAILs by check: %s\n", s.failsLine())
	}
	_, err := fmt.Fprintf(w, "workspaces: %s\n", s.WorkDir)
	return err
}

// failsLine lists FailsByCheck, most FAILs first, then by name.
func (s *Summary) failsLine() string {
	checks := slices.Collect(maps.Keys(s.FailsByCheck))
	slices.SortFunc(checks, func(a, b string) int {
		return cmp.Or(cmp.Compare(s.FailsByCheck[b], s.FailsByCheck[a]), cmp.Compare(a, b))
	})
	parts := make([]string, len(checks))
	for i, c := range checks {
		parts[i] = fmt.Sprintf("%s %d", c, s.FailsByCheck[c])
	}
	return strings.Join(parts, ", ")
}

// oneLine flattens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// roundDur rounds a duration for people: milliseconds under a second,
// tenths of a second above.
func roundDur(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}
