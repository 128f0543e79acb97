package report

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
)

// DefaultNights is how many of the latest nights a report covers by
// default: two weeks, what seed 003 says would settle its two numbers.
const DefaultNights = 14

// Config says which nights a report covers and how it writes the commands
// it suggests. Zero fields take their defaults.
type Config struct {
	// Nights is how many of the latest nights the report covers; default
	// DefaultNights. Since, when set, wins.
	Nights int
	// Since, when set, makes the report cover the nights whose window
	// opened at or after it.
	Since time.Time
	// DB is the ledger as the person named it (--db); the commands the
	// report suggests carry it (`nightshift task approve 7 --db night.db`).
	// Default none: the commands read $NIGHTSHIFT_DB or nightshift.db, as
	// the report's own command did.
	DB string
}

// Report is what the ledger says about the nights a report covers, and
// what needs a person now. Its JSON writes every list, empty or not, as
// a list ([]), never null.
type Report struct {
	// At is when the report was made.
	At time.Time `json:"at"`
	// Covers says which nights the report covers, in words.
	Covers string `json:"covers"`
	// Needs is what needs a person, first in every form of the report.
	Needs Needs `json:"needs_a_person"`
	// Nights are the covered nights, oldest first.
	Nights []Night `json:"nights"`
	// Trend is one point per covered night, oldest first: the series the
	// page charts.
	Trend  []Point `json:"trend"`
	Across Across  `json:"across"`
}

// Night is one night's account.
type Night struct {
	ledger.Night
	// Setup is how the night was set up (its roles' models and ceilings),
	// or nil for a night of an earlier version, which did not record it.
	Setup *ledger.Setup `json:"setup,omitempty"`
	// CutShort and OutOfWork are seed 003's second number kept apart: a
	// night failure handling cut short (a system stop, even one the night
	// was resumed after; every worker of a role out; a night-scope
	// failure), and a night that ran out of work (nothing takeable).
	CutShort  bool `json:"cut_short"`
	OutOfWork bool `json:"out_of_work"`
	// EndedWaiting is set on a night whose window closed while it sat
	// idle, waiting for a person's answer to a parked action; Waited is
	// how long it sat so in all.
	EndedWaiting bool          `json:"ended_waiting"`
	Waited       time.Duration `json:"waited_for_a_person_ns"`
	// Finished counts the steps each role finished (every end but
	// interrupted), and Succeeded those that did what they were for
	// (a call that worked; an attempt that ended done).
	Finished  map[ledger.Role]int `json:"finished"`
	Succeeded map[ledger.Role]int `json:"succeeded"`
	// Interrupted counts steps a signal or a crash cut short (and that
	// were continued or retried).
	Interrupted int        `json:"interrupted"`
	Tasks       TaskCounts `json:"tasks"`
	// ByScope counts the failures per scope.
	ByScope  map[ledger.Scope]int `json:"failures_by_scope"`
	Failures []ledger.Failure     `json:"failures"`
	// ByHandAfter are the failures a person recorded after the night,
	// while no night was open (`nightshift task fail` between nights):
	// they belong to no night, and count like any other.
	ByHandAfter []ledger.Failure `json:"failures_by_hand_after"`
	// Dropped are the tasks a person gave up during the night or after
	// it, before the next.
	Dropped []ledger.Drop `json:"dropped"`
	// Silent are the night's silent failures: work that did not happen,
	// and said nothing.
	Silent []Silent `json:"silent_failures"`
	// FailsByCheck counts builder FAILs by the check that decided them.
	FailsByCheck map[string]int `json:"fails_by_check"`
	Notes        []ledger.Note  `json:"notes"`
	Tokens       int64          `json:"tokens"`
	// Timeline is the night at a glance: every step on its worker's row.
	Timeline Timeline `json:"timeline"`

	steps []ledger.Step
}

// TaskCounts counts a night's builder steps by how they ended, the tasks
// skipped tonight and the tasks a person gave up.
type TaskCounts struct {
	Done    int `json:"done"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	Parked  int `json:"parked"`
	Dropped int `json:"dropped"`
}

// Across holds the numbers across the covered nights.
type Across struct {
	Nights int `json:"nights"`
	// BuilderSteps is builder steps finished, per night in order: seed
	// 003's first number.
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
	// EndedWaiting counts the nights whose window closed while they sat
	// idle waiting for a person: not cut short, not out of work, and no
	// work done in what was left of the window either.
	EndedWaiting      int      `json:"ended_waiting"`
	EndedWaitingNames []string `json:"ended_waiting_nights"`
	// Failures counts every failure by scope, the ones recorded by hand
	// between nights too; ByHand counts those a person recorded (during
	// the nights and between them).
	Failures map[ledger.Scope]int `json:"failures_by_scope"`
	ByHand   int                  `json:"failures_by_hand"`
	// Dropped counts the tasks a person gave up; Silent the nights' silent
	// failures.
	Dropped int `json:"dropped"`
	Silent  int `json:"silent_failures"`
	// Tokens is the tokens spent over the nights, and Spend all they
	// spent: the prompt cache's share and the cost (unknown when a
	// step's is).
	Tokens int64        `json:"tokens"`
	Spend  ledger.Spend `json:"spend"`
}

// Count is one night's number.
type Count struct {
	Night string `json:"night"`
	N     int    `json:"n"`
}

// Build reads the ledger and makes the report as of now.
func Build(ctx context.Context, l *ledger.Ledger, now time.Time, cfg Config) (*Report, error) {
	r := &Report{At: now.UTC()}
	all, err := l.Nights(ctx)
	if err != nil {
		return nil, err
	}
	covered, covers := cover(all, cfg)
	r.Covers = covers
	h, err := readHistory(ctx, l)
	if err != nil {
		return nil, err
	}
	after := attach(all, covered, h)
	for _, n := range covered {
		nr, err := buildNight(ctx, l, n, h, now)
		if err != nil {
			return nil, err
		}
		nr.ByHandAfter, nr.Dropped = after.failures[n.ID], after.drops[n.ID]
		nr.Tasks.Dropped = len(nr.Dropped)
		r.Nights = append(r.Nights, nr)
	}
	r.Trend = trend(r.Nights)
	r.Across = across(r.Nights)
	if r.Needs, err = needs(ctx, l, now, r.Location(), cfg, all, r.Nights, h); err != nil {
		return nil, err
	}
	fillLists(r)
	return r, nil
}

// cover picks the nights a report covers, and says which in words.
func cover(all []ledger.Night, cfg Config) ([]ledger.Night, string) {
	if !cfg.Since.IsZero() {
		var out []ledger.Night
		for _, n := range all {
			if !n.WindowStart.Before(cfg.Since) {
				out = append(out, n)
			}
		}
		return out, "the nights since " + cfg.Since.UTC().Format("2006-01-02 15:04")
	}
	k := cmp.Or(cfg.Nights, DefaultNights)
	if len(all) > k {
		all = all[len(all)-k:]
	}
	if k == 1 {
		return all, "the last night"
	}
	return all, "the last " + itoa(k) + " nights"
}

func buildNight(ctx context.Context, l *ledger.Ledger, n ledger.Night, h *history, now time.Time) (Night, error) {
	nr := Night{Night: n, CutShort: n.CutShort(), OutOfWork: n.OutOfWork(),
		Finished: map[ledger.Role]int{}, Succeeded: map[ledger.Role]int{}, ByScope: map[ledger.Scope]int{}, FailsByCheck: map[string]int{}}
	switch s, err := l.NightSetup(ctx, n.ID); {
	case err == nil:
		nr.Setup = &s
	case !errors.Is(err, ledger.ErrNotFound):
		return nr, err
	}
	steps, err := l.Steps(ctx, n.ID)
	if err != nil {
		return nr, err
	}
	if nr.Failures, err = l.Failures(ctx, n.ID); err != nil {
		return nr, err
	}
	byStep := map[int64][]ledger.Failure{}
	skipped := map[int64]bool{}
	for _, f := range nr.Failures {
		nr.ByScope[f.Scope]++
		if f.Step != 0 {
			byStep[f.Step] = append(byStep[f.Step], f)
		}
		if f.Scope == ledger.TaskScope && f.Task != 0 {
			skipped[f.Task] = true
		}
	}
	nr.Tasks.Skipped = len(skipped)
	for _, s := range steps {
		nr.Tokens += s.Tokens
		switch s.State {
		case ledger.Interrupted:
			nr.Interrupted++
			continue
		case ledger.Running:
			continue
		case ledger.Finished:
			nr.Succeeded[s.Role]++
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
	if nr.Notes, err = l.Notes(ctx, n.ID); err != nil {
		return nr, err
	}
	nr.Timeline = timeline(nr, steps, byStep, nr.Failures, h, now)
	nr.Waited, nr.EndedWaiting = waited(nr)
	nr.Silent = silentOf(nr, steps, nr.Failures, h, now)
	nr.steps = steps
	return nr, nil
}

func across(nights []Night) Across {
	a := Across{Failures: map[ledger.Scope]int{}}
	for _, n := range nights {
		a.Nights++
		a.Tokens += n.Tokens
		a.Spend.Add(n.Spend)
		a.BuilderSteps = append(a.BuilderSteps, Count{Night: n.Name, N: n.Finished[ledger.Builder]})
		for s, k := range n.ByScope {
			a.Failures[s] += k
		}
		for _, f := range n.Failures {
			if f.Manual {
				a.ByHand++
			}
		}
		for _, f := range n.ByHandAfter {
			a.Failures[f.Scope]++
			a.ByHand++
		}
		a.Dropped += len(n.Dropped)
		a.Silent += len(n.Silent)
		if n.EndedWaiting {
			a.EndedWaiting++
			a.EndedWaitingNames = append(a.EndedWaitingNames, n.Name)
		}
		switch {
		case n.CutShort:
			a.CutShort++
			a.CutShortNames = append(a.CutShortNames, n.Name)
		case n.OutOfWork:
			a.OutOfWork++
			a.OutOfWorkNames = append(a.OutOfWorkNames, n.Name)
		default:
			continue
		}
		a.EndedEarly++
		a.EarlyNames = append(a.EarlyNames, n.Name)
	}
	return a
}
