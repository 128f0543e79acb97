package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
)

// Outcome is how a step ended, as the timeline marks it.
type Outcome string

// The outcomes a timeline mark shows. Skipped and Failed are the seed's
// distinction made visible: a failed step charged to its task (the task is
// skipped tonight, the worker goes on) against one charged to the worker
// or higher.
const (
	Done Outcome = "done"
	// Skipped is a failed step charged to its task (or only to the call):
	// its task goes on tonight's skip list, the worker goes on.
	Skipped Outcome = "skipped"
	// Failed is a failed step charged to the worker, the night or the
	// system, or a failed call of a role without tasks.
	Failed      Outcome = "failed"
	Parked      Outcome = "parked"
	Interrupted Outcome = "interrupted"
	// Running is a step still running (the night has not ended, or its
	// process died and nobody has settled it yet).
	Running Outcome = "running"
)

// Outcomes lists the outcomes in the order a legend shows them.
var Outcomes = []Outcome{Done, Skipped, Failed, Parked, Interrupted, Running}

// Timeline is one night at a glance: its window, one row per worker with a
// mark per step, the ceilings, the stops it was resumed after, and when
// and why it ended.
type Timeline struct {
	WindowStart time.Time `json:"window_start"`
	WindowEnd   time.Time `json:"window_end"`
	// Zone is the window's time zone, in which the page writes times.
	Zone string `json:"zone"`
	Rows []Row  `json:"rows"`
	// Ceilings are the roles' step ceilings and the steps each took.
	Ceilings []Ceiling `json:"ceilings"`
	// BudgetTokens is the night's token budget (0: none), and Tokens what
	// the night spent.
	BudgetTokens int64 `json:"budget_tokens,omitempty"`
	Tokens       int64 `json:"tokens"`
	// EndedAt is zero while the night runs.
	EndedAt time.Time      `json:"ended_at"`
	End     ledger.EndKind `json:"end,omitempty"`
	Reason  string         `json:"reason,omitempty"`
	// Stops are the system stops the night was resumed after.
	Stops []ledger.Stop `json:"stops,omitempty"`
}

// Ceiling is one role's step ceiling (0: none) and the steps it took.
type Ceiling struct {
	Role    ledger.Role `json:"role"`
	Ceiling int         `json:"ceiling"`
	Took    int         `json:"took"`
}

// Row is one worker's steps in a night.
type Row struct {
	Role   ledger.Role `json:"role"`
	Worker string      `json:"worker"`
	Marks  []Mark      `json:"marks"`
}

// Mark is one step on the timeline.
type Mark struct {
	Step  int64     `json:"step"`
	Task  int64     `json:"task,omitempty"`
	Title string    `json:"title,omitempty"`
	Start time.Time `json:"start"`
	// End is zero for a step still running.
	End     time.Time `json:"end"`
	Outcome Outcome   `json:"outcome"`
	// Detail says what the step did, for the mark's hover text: its
	// outcome, and the failures charged with it.
	Detail string `json:"detail"`
}

// Location returns the timeline's zone, UTC when it names none or it does not
// load.
func (t Timeline) Location() *time.Location {
	return (ledger.Setup{Zone: t.Zone}).Location()
}

// Marks counts the timeline's marks.
func (t Timeline) Marks() int {
	n := 0
	for _, r := range t.Rows {
		n += len(r.Marks)
	}
	return n
}

// timeline lays a night's steps out by worker.
func timeline(n Night, steps []ledger.Step, failures map[int64][]ledger.Failure, tasks map[int64]ledger.Task) Timeline {
	t := Timeline{WindowStart: n.WindowStart, WindowEnd: n.WindowEnd, Tokens: n.Tokens,
		EndedAt: n.EndedAt, End: n.End, Reason: n.Reason, Stops: n.Stops}
	rows := map[ledger.WorkerKey]*Row{}
	var order []ledger.WorkerKey
	row := func(role ledger.Role, worker string) *Row {
		k := ledger.WorkerKey{Role: role, Worker: worker}
		if rows[k] == nil {
			rows[k] = &Row{Role: role, Worker: worker}
			order = append(order, k)
		}
		return rows[k]
	}
	// The setup's workers come first, in the order their role tries them,
	// so that a worker that took no step tonight has its (empty) row.
	if s := n.Setup; s != nil {
		t.Zone, t.BudgetTokens = s.Zone, s.BudgetTokens
		for _, role := range ledger.Roles {
			rs, ok := s.Roles[role]
			if !ok {
				continue
			}
			for _, m := range rs.Models {
				row(role, m)
			}
			t.Ceilings = append(t.Ceilings, Ceiling{Role: role, Ceiling: rs.Ceiling, Took: n.Finished[role]})
		}
	}
	for _, s := range steps {
		m := Mark{Step: s.ID, Task: s.Task, Start: s.StartedAt, End: s.EndedAt, Outcome: outcomeOf(s, failures[s.ID])}
		if s.Task != 0 {
			m.Title = tasks[s.Task].Title
		}
		m.Detail = detail(s, m, failures[s.ID])
		r := row(s.Role, s.Worker)
		r.Marks = append(r.Marks, m)
	}
	if n.Setup == nil {
		for _, role := range ledger.Roles {
			if n.Finished[role] > 0 {
				t.Ceilings = append(t.Ceilings, Ceiling{Role: role, Took: n.Finished[role]})
			}
		}
	}
	// Rows go in pipeline order: proposer, judge, builder.
	slices.SortStableFunc(order, func(a, b ledger.WorkerKey) int {
		return slices.Index(ledger.Roles, a.Role) - slices.Index(ledger.Roles, b.Role)
	})
	for _, k := range order {
		t.Rows = append(t.Rows, *rows[k])
	}
	return t
}

// outcomeOf says how a step ended on the timeline: a failed step of a
// task charged no higher than the task is skipped; one charged higher, or
// a failed call of a role without tasks, failed.
func outcomeOf(s ledger.Step, fs []ledger.Failure) Outcome {
	switch s.State {
	case ledger.Finished:
		return Done
	case ledger.StepParked:
		return Parked
	case ledger.Interrupted:
		return Interrupted
	case ledger.Running:
		return Running
	}
	if s.Task == 0 {
		return Failed
	}
	for _, f := range fs {
		if scopeRank(f.Scope) > scopeRank(ledger.TaskScope) {
			return Failed
		}
	}
	return Skipped
}

func scopeRank(s ledger.Scope) int { return slices.Index(ledger.Scopes, s) }

// detail is a mark's hover text: `task 3 "booklet" · b1 · 22:05–22:10 ·
// skipped (unverified): task empty-answer: ...`.
func detail(s ledger.Step, m Mark, fs []ledger.Failure) string {
	var b strings.Builder
	if s.Task != 0 {
		fmt.Fprintf(&b, "task %d %q · ", s.Task, m.Title)
	}
	fmt.Fprintf(&b, "%s/%s · %s", s.Role, s.Worker, m.Outcome)
	if s.Outcome != "" && s.Outcome != string(m.Outcome) && s.Outcome != "ok" {
		fmt.Fprintf(&b, " (%s)", s.Outcome)
	}
	if len(s.Checks) > 0 {
		fmt.Fprintf(&b, " · failed checks: %s", strings.Join(s.Checks, ", "))
	}
	for _, f := range fs {
		fmt.Fprintf(&b, " · %s %s: %s", f.Scope, f.Rule, f.Reason)
	}
	if len(fs) == 0 && s.Reason != "" && m.Outcome != Done {
		fmt.Fprintf(&b, " · %s", s.Reason)
	}
	if s.Tokens > 0 {
		fmt.Fprintf(&b, " · %d tokens", s.Tokens)
	}
	return b.String()
}
