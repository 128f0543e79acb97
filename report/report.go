package report

import (
	"context"
	"sort"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
)

// Report is what the ledger says about every night.
type Report struct {
	// At is when the report was made.
	At time.Time `json:"at"`
	// Attention lists the parked tasks a person should look at, the ones
	// past their deadline first.
	Attention []Waiting `json:"attention"`
	Nights    []Night   `json:"nights"`
	Across    Across    `json:"across"`
}

// Waiting is a parked task that needs a person, or an approved one that
// has not run yet.
type Waiting struct {
	Task   int64  `json:"task"`
	Title  string `json:"title"`
	Action string `json:"action"`
	// Status is "past-deadline", "approved-not-run" or "waiting".
	Status   string    `json:"status"`
	Deadline time.Time `json:"deadline"`
	// Since is when it started waiting: parked, or approved.
	Since time.Time `json:"since"`
	// For is how long it has waited until the report.
	For time.Duration `json:"for_ns"`
}

// Night is one night's account.
type Night struct {
	ledger.Night
	// CutShort and OutOfWork are seed 003's second number kept apart: a
	// night failure handling cut short (a system stop, even one the night
	// was resumed after; every worker of a role out; a night-scope
	// failure), and a night that ran out of work (nothing takeable).
	CutShort  bool `json:"cut_short"`
	OutOfWork bool `json:"out_of_work"`
	// Finished counts the steps each role finished.
	Finished map[ledger.Role]int `json:"finished"`
	// Interrupted counts steps a crash cut short (and that were retried).
	Interrupted int        `json:"interrupted"`
	Tasks       TaskCounts `json:"tasks"`
	// ByScope counts the failures per scope.
	ByScope  map[ledger.Scope]int `json:"failures_by_scope"`
	Failures []ledger.Failure     `json:"failures"`
	// FailsByCheck counts builder FAILs by the check that decided them.
	FailsByCheck map[string]int `json:"fails_by_check"`
	Notes        []ledger.Note  `json:"notes"`
	Tokens       int64          `json:"tokens"`
}

// TaskCounts counts tasks by how their steps ended tonight.
type TaskCounts struct {
	Done    int `json:"done"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	Parked  int `json:"parked"`
}

// Across holds the numbers across nights.
type Across struct {
	Nights int `json:"nights"`
	// BuilderSteps is builder steps finished, per night in order.
	BuilderSteps []Count `json:"builder_steps_per_night"`
	// CutShort counts the nights failure handling cut short, and
	// OutOfWork those that ran out of work: the two kinds of early end,
	// kept apart because only the first says something is wrong.
	CutShort       int      `json:"cut_short"`
	CutShortNames  []string `json:"cut_short_nights"`
	OutOfWork      int      `json:"out_of_work"`
	OutOfWorkNames []string `json:"out_of_work_nights"`
	// EndedEarly is their sum, the nights that ended before the clock ran
	// out (seed 003's second number as it first counted it), and
	// EarlyNames names them.
	EndedEarly int      `json:"ended_early"`
	EarlyNames []string `json:"ended_early_nights"`
}

// Count is one night's number.
type Count struct {
	Night string `json:"night"`
	N     int    `json:"n"`
}

// Build reads the ledger and makes the report as of now.
func Build(ctx context.Context, l *ledger.Ledger, now time.Time) (*Report, error) {
	r := &Report{At: now.UTC()}
	nights, err := l.Nights(ctx)
	if err != nil {
		return nil, err
	}
	for _, n := range nights {
		nr, err := buildNight(ctx, l, n)
		if err != nil {
			return nil, err
		}
		r.Nights = append(r.Nights, nr)
		r.Across.Nights++
		r.Across.BuilderSteps = append(r.Across.BuilderSteps, Count{Night: n.Name, N: nr.Finished[ledger.Builder]})
		switch {
		case nr.CutShort:
			r.Across.CutShort++
			r.Across.CutShortNames = append(r.Across.CutShortNames, n.Name)
		case nr.OutOfWork:
			r.Across.OutOfWork++
			r.Across.OutOfWorkNames = append(r.Across.OutOfWorkNames, n.Name)
		default:
			continue
		}
		r.Across.EndedEarly++
		r.Across.EarlyNames = append(r.Across.EarlyNames, n.Name)
	}
	if r.Attention, err = attention(ctx, l, now); err != nil {
		return nil, err
	}
	return r, nil
}

func buildNight(ctx context.Context, l *ledger.Ledger, n ledger.Night) (Night, error) {
	nr := Night{Night: n, CutShort: n.CutShort(), OutOfWork: n.OutOfWork(),
		Finished: map[ledger.Role]int{}, ByScope: map[ledger.Scope]int{}, FailsByCheck: map[string]int{}}
	steps, err := l.Steps(ctx, n.ID)
	if err != nil {
		return nr, err
	}
	for _, s := range steps {
		nr.Tokens += s.Tokens
		switch s.State {
		case ledger.Interrupted:
			nr.Interrupted++
			continue
		case ledger.Running:
			continue
		}
		nr.Finished[s.Role]++
		if s.Role != ledger.Builder {
			continue
		}
		switch s.State {
		case ledger.Finished:
			nr.Tasks.Done++
		case ledger.StepFailed:
			nr.Tasks.Failed++
			for _, c := range s.Checks {
				nr.FailsByCheck[c]++
			}
		case ledger.StepParked:
			nr.Tasks.Parked++
		}
	}
	if nr.Failures, err = l.Failures(ctx, n.ID); err != nil {
		return nr, err
	}
	skipped := map[int64]bool{}
	for _, f := range nr.Failures {
		nr.ByScope[f.Scope]++
		if f.Scope == ledger.TaskScope && f.Task != 0 {
			skipped[f.Task] = true
		}
	}
	nr.Tasks.Skipped = len(skipped)
	nr.Notes, err = l.Notes(ctx, n.ID)
	return nr, err
}

func attention(ctx context.Context, l *ledger.Ledger, now time.Time) ([]Waiting, error) {
	ps, err := l.ParkedActions(ctx)
	if err != nil {
		return nil, err
	}
	var out []Waiting
	for _, p := range ps {
		w := Waiting{Task: p.Task, Action: p.Action, Deadline: p.Deadline, Since: p.AskedAt}
		switch {
		case p.Decision == ledger.Expired:
			w.Status = "past-deadline"
		case p.Decision == ledger.Undecided && !now.Before(p.Deadline):
			w.Status = "past-deadline"
		case p.Decision == ledger.Approved && !p.Used:
			w.Status, w.Since = "approved-not-run", p.DecidedAt
		case p.Decision == ledger.Undecided:
			w.Status = "waiting"
		default:
			continue
		}
		if t, err := l.Task(ctx, p.Task); err == nil {
			w.Title = t.Title
		}
		w.For = now.Sub(w.Since)
		out = append(out, w)
	}
	rank := map[string]int{"past-deadline": 0, "approved-not-run": 1, "waiting": 2}
	sort.SliceStable(out, func(i, j int) bool { return rank[out[i].Status] < rank[out[j].Status] })
	return out, nil
}
