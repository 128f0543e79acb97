package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/statedir"
)

// newTaskShowCmd is `nightshift task show ID`: what became of a task —
// its whole title and body, its attempts, and the latest one's verdict
// with the diff of its changes (from the attempt's run record), so that
// a person asked to look at an unverified result knows where to look.
func newTaskShowCmd() *cobra.Command {
	var db, stateDir string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID [--json] [--state-dir DIR]",
		Short: "Show a task: its attempts, the latest one's verdict and the diff of its changes",
		Long: `Show prints a task whole (its title, body, state, score and model level), every
builder attempt at it, and the latest attempt in full: how it ended and why (its
verdict: the checks that failed, the failures charged), its answer, and the diff
of the changes it made, read from the attempt's run record in the state
directory (a failed attempt's changes were rolled back; the record keeps them).
The record is on the machine that ran the attempt, in the state directory the
night was given (recorded with the night; --state-dir names another), for 30
days. Then the task's failures, parked actions, notes, and whether a person
gave it up.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("task show takes one task ID")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := taskID(args[0])
			if err != nil {
				return err
			}
			return withExistingLedger(cmd, db, func(ctx context.Context, l *ledger.Ledger) error {
				s, err := showTask(ctx, l, id, stateDir)
				if err != nil {
					return notFound(ctx, l, id, "", err)
				}
				if asJSON {
					enc := json.NewEncoder(dataOut(cmd))
					enc.SetIndent("", "  ")
					return enc.Encode(s)
				}
				return s.text(humanOut(cmd))
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	stateDirFlag(cmd, &stateDir)
	dbFlag(cmd, &db)
	return cmd
}

// shownTask is what `task show` says of a task.
type shownTask struct {
	Task ledger.Task `json:"task"`
	// Attempts are the builder's steps on it, oldest first.
	Attempts []ledger.Step `json:"attempts"`
	// Latest is the latest attempt that ended, in full; nil before any.
	Latest   *shownAttempt         `json:"latest_attempt"`
	Failures []ledger.Failure      `json:"failures"`
	Parked   []ledger.ParkedAction `json:"parked"`
	Notes    []ledger.TaskNote     `json:"notes"`
	Dropped  *ledger.Drop          `json:"dropped,omitempty"`
	nights   map[int64]string
}

// shownAttempt is an attempt with its verdict and its changes.
type shownAttempt struct {
	Step  ledger.Step `json:"step"`
	Night string      `json:"night"`
	// Verdict says how it ended and why; Failures are those charged
	// with it.
	Verdict  string           `json:"verdict"`
	Failures []ledger.Failure `json:"failures"`
	// Record is the run record the diff comes from; Patch the diff of
	// what it changed, when the run was rolled back (a done run's
	// changes are in the task's workspace); Changes says which, or why
	// there is no diff to show.
	Record  string `json:"record,omitempty"`
	Patch   string `json:"patch"`
	Changes string `json:"changes"`
}

func showTask(ctx context.Context, l *ledger.Ledger, id int64, stateDir string) (*shownTask, error) {
	t, err := l.Task(ctx, id)
	if err != nil {
		return nil, err
	}
	s := &shownTask{Task: t, Attempts: []ledger.Step{}, nights: map[int64]string{}}
	steps, err := l.TaskSteps(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, st := range steps {
		if st.Role == ledger.Builder {
			s.Attempts = append(s.Attempts, st)
		}
		if _, ok := s.nights[st.Night]; !ok {
			if n, err := l.Night(ctx, st.Night); err == nil {
				s.nights[st.Night] = n.Name
			}
		}
	}
	if s.Failures, err = l.TaskFailures(ctx, id); err != nil {
		return nil, err
	}
	ps, err := l.ParkedActions(ctx)
	if err != nil {
		return nil, err
	}
	s.Parked = []ledger.ParkedAction{}
	for _, p := range ps {
		if p.Task == id {
			s.Parked = append(s.Parked, p)
		}
	}
	if s.Notes, err = l.TaskNotes(ctx, id); err != nil {
		return nil, err
	}
	if s.Notes == nil {
		s.Notes = []ledger.TaskNote{}
	}
	drops, err := l.Drops(ctx)
	if err != nil {
		return nil, err
	}
	for _, d := range drops {
		if d.Task == id {
			s.Dropped = &d
		}
	}
	for _, st := range slices.Backward(s.Attempts) {
		if st.State == ledger.Running {
			continue
		}
		a := &shownAttempt{Step: st, Night: s.nights[st.Night], Verdict: verdict(st), Failures: []ledger.Failure{}}
		for _, f := range s.Failures {
			if f.Step == st.ID {
				a.Failures = append(a.Failures, f)
			}
		}
		a.Record, a.Patch, a.Changes = attemptChanges(ctx, l, st, stateDir)
		s.Latest = a
		break
	}
	if s.Failures == nil {
		s.Failures = []ledger.Failure{}
	}
	return s, nil
}

// verdict says how an attempt ended and why.
func verdict(st ledger.Step) string {
	v := st.Outcome
	if v == "" {
		v = string(st.State)
	}
	if len(st.Checks) > 0 {
		v += ": failed " + strings.Join(st.Checks, ", ")
	}
	if st.Reason != "" {
		v += ": " + st.Reason
	}
	return v
}

// attemptRecord is what `task show` reads of a run record (agent.Record).
type attemptRecord struct {
	Run        string    `json:"run"`
	Started    time.Time `json:"started"`
	Ended      time.Time `json:"ended"`
	Outcome    string    `json:"outcome"`
	Patch      string    `json:"patch"`
	RolledBack []string  `json:"rolled_back"`
}

// attemptChanges finds the attempt's run record (in the state directory
// the night was given, or stateDir), and returns its path, its diff and
// what became of the changes.
func attemptChanges(ctx context.Context, l *ledger.Ledger, st ledger.Step, stateDir string) (path, patch, changes string) {
	setup, err := l.NightSetup(ctx, st.Night)
	if err != nil || setup.WorkDir == "" {
		return "", "", "the night recorded no work folder (a ledger of an earlier version): its run record cannot be found"
	}
	ws := filepath.Join(setup.WorkDir, fmt.Sprintf("task-%d", st.Task))
	if stateDir == "" {
		stateDir = setup.StateBase
	}
	base, err := statedir.Base(stateDir)
	if err != nil {
		return "", "", err.Error()
	}
	dir, err := statedir.WorkspaceDir(base, ws)
	if err != nil {
		return "", "", fmt.Sprintf("the task's workspace %s is not here (gone, or on the machine of %s, which ran the attempt): its run record cannot be read", ws, st.Owner)
	}
	runs := filepath.Join(dir, statedir.RunsName)
	entries, err := os.ReadDir(runs)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", "", err.Error()
	}
	// The attempt's record is the latest that ended while it ran (the
	// ledger keeps milliseconds, a record nanoseconds).
	from, to := st.StartedAt.Add(-time.Second), st.EndedAt.Add(time.Second)
	var best *attemptRecord
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := statedir.ReadFile(filepath.Join(runs, e.Name()))
		if err != nil {
			continue
		}
		var r attemptRecord
		if json.Unmarshal(data, &r) != nil || r.Ended.Before(from) || r.Ended.After(to) {
			continue
		}
		if best == nil || r.Ended.After(best.Ended) {
			best, path = &r, filepath.Join(runs, e.Name())
		}
	}
	switch {
	case best == nil:
		return "", "", fmt.Sprintf("no run record of it in %s (records are kept 30 days; --state-dir names another state directory)", runs)
	case best.Patch != "":
		return path, best.Patch, "rolled back: the diff is what it changed, kept in its run record"
	case st.State == ledger.Finished:
		return path, "", "kept: its changes are in the task's workspace " + ws
	}
	return path, "", "it changed no file"
}

func (s *shownTask) text(w io.Writer) error {
	var b strings.Builder
	t := s.Task
	// What a model wrote (titles, answers, diffs) is shown escaped: a
	// terminal must not run what it holds.
	e := gate.Escape
	score := "unscored"
	if t.Scored {
		score = "score " + strconv.FormatFloat(t.Score, 'g', -1, 64)
	}
	fmt.Fprintf(&b, "task %d %q\n  %s · %s · model level %d · from %s · added %s\n", t.ID, e(t.Title), t.State, score, t.Level, t.Source, t.CreatedAt.Format("2006-01-02 15:04 MST"))
	if t.Body != "" {
		fmt.Fprintf(&b, "  body: %s\n", e(t.Body))
	}
	if d := s.Dropped; d != nil {
		fmt.Fprintf(&b, "  given up %s (it was %s)%s\n", d.At.Format("2006-01-02 15:04 MST"), d.Was, colon(d.Reason))
	}
	fmt.Fprintf(&b, "\nattempts (%d):\n", len(s.Attempts))
	for _, a := range s.Attempts {
		fmt.Fprintf(&b, "  step %d  night %s  %s  %s–%s  %s\n", a.ID, s.nights[a.Night], a.Worker, a.StartedAt.Format("15:04"), a.EndedAt.Format("15:04"), e(verdict(a)))
	}
	if a := s.Latest; a != nil {
		st := a.Step
		fmt.Fprintf(&b, "\nlatest attempt: step %d, night %s, builder/%s, %s to %s\n", st.ID, a.Night, st.Worker,
			st.StartedAt.Format("2006-01-02 15:04"), st.EndedAt.Format("15:04 MST"))
		fmt.Fprintf(&b, "  verdict: %s\n", e(a.Verdict))
		for _, f := range a.Failures {
			fmt.Fprintf(&b, "  charged: %s %s: %s\n", f.Scope, f.Rule, e(f.Reason))
		}
		if st.Answer != "" {
			fmt.Fprintf(&b, "  answer: %s\n", e(st.Answer))
		}
		fmt.Fprintf(&b, "  changes: %s\n", a.Changes)
		if a.Record != "" {
			fmt.Fprintf(&b, "  run record: %s\n", a.Record)
		}
		if a.Patch != "" {
			b.WriteString("\n" + e(a.Patch))
			if !strings.HasSuffix(a.Patch, "\n") {
				b.WriteString("\n")
			}
		}
	} else {
		b.WriteString("  none yet\n")
	}
	if len(s.Failures) > 0 {
		fmt.Fprintf(&b, "\nfailures (%d):\n", len(s.Failures))
		for _, f := range s.Failures {
			who := f.Worker
			if f.Manual {
				who = "by hand"
			}
			when := "between nights"
			if f.Night != 0 {
				when = "night " + s.nightName(f.Night)
			}
			fmt.Fprintf(&b, "  %s  %s  %s %s (%s, level %d): %s\n", f.At.Format("2006-01-02 15:04"), when, f.Scope, f.Rule, who, f.Level, e(f.Reason))
		}
	}
	for _, p := range s.Parked {
		d := string(p.Decision)
		if d == "" {
			d = "waiting, deadline " + p.Deadline.Format("2006-01-02 15:04 MST")
		}
		fmt.Fprintf(&b, "parked %s on %s: %s\n", p.AskedAt.Format("2006-01-02 15:04"), e(p.Action), d)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(&b, "note (%s, level %d): %s\n", n.Worker, n.Level, e(n.Text))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// nightName is a night's name, or its ID when the ledger lost it.
func (s *shownTask) nightName(id int64) string {
	if n, ok := s.nights[id]; ok {
		return n
	}
	return fmt.Sprint(id)
}

func colon(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}
