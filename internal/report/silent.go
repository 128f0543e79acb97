package report

import (
	"slices"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
)

// Seed 003: "work that never happened produces no error message". A
// night can run its course with nothing failing loudly enough to stop it
// and still do nothing: the judge's every call lost (charged to the call,
// so nothing stops), the builder finishing nothing while tasks waited.
// The report names these as silent failures, per night and, until the
// role succeeds again, as something that needs a person.

// The kinds of silent failure.
const (
	// NoSuccess is a role (the proposer or the judge) whose every call of
	// the night failed or came back empty.
	NoSuccess = "no-successful-call"
	// FinishedNothing is a builder that finished no task in a night while
	// tasks waited in the queue that it never took: not a task that
	// failed and sat the night out on the skip list (that failure was
	// loud), but work that was there and did not happen.
	FinishedNothing = "builder-finished-nothing"
)

// Silent is one silent failure of one night.
type Silent struct {
	Kind  string      `json:"kind"`
	Night string      `json:"night"`
	Role  ledger.Role `json:"role"`
	// Workers are the role's workers that took its steps.
	Workers []string `json:"workers"`
	// Calls counts the role's steps (for the builder, its attempts),
	// Failed those that failed, Empty those that came back empty (among
	// the failed) and Parked the builder's attempts that parked.
	Calls  int `json:"calls"`
	Failed int `json:"failed"`
	Empty  int `json:"empty"`
	Parked int `json:"parked,omitempty"`
	// Waiting counts the tasks that waited in the queue during the night
	// and that the builder never took (FinishedNothing); Unscored those
	// of them the night's judge has not scored (0 with no judge).
	Waiting  int `json:"waiting_tasks,omitempty"`
	Unscored int `json:"unscored_tasks,omitempty"`
	// Last is the reason of the role's last failure that night.
	Last string `json:"last,omitempty"`
}

// silentOf finds a night's silent failures.
func silentOf(n Night, steps []ledger.Step, failures []ledger.Failure, h *history, now time.Time) []Silent {
	byStep := map[int64][]ledger.Failure{}
	for _, f := range failures {
		byStep[f.Step] = append(byStep[f.Step], f)
	}
	var out []Silent
	for _, role := range ledger.Roles {
		s := Silent{Kind: NoSuccess, Night: n.Name, Role: role}
		ok := 0
		for _, st := range steps {
			if st.Role != role || st.State == ledger.Interrupted || st.State == ledger.Running {
				continue
			}
			s.Calls++
			if !slices.Contains(s.Workers, st.Worker) {
				s.Workers = append(s.Workers, st.Worker)
			}
			switch st.State {
			case ledger.Finished:
				ok++
			case ledger.StepParked:
				s.Parked++
			case ledger.StepFailed:
				s.Failed++
				empty := st.Outcome == "empty"
				for _, f := range byStep[st.ID] {
					empty = empty || f.Rule == "empty-answer"
					s.Last = f.Reason
				}
				if empty {
					s.Empty++
				}
				if len(byStep[st.ID]) == 0 && st.Reason != "" {
					s.Last = st.Reason
				}
			}
		}
		if role != ledger.Builder {
			if s.Calls > 0 && ok == 0 {
				out = append(out, s)
			}
			continue
		}
		// A system stop that ended the night says what to do itself.
		if ok > 0 || n.End == ledger.SystemStopped {
			continue
		}
		s.Kind = FinishedNothing
		took := map[int64]bool{}
		for _, st := range steps {
			if st.Role == ledger.Builder {
				took[st.Task] = true
			}
		}
		judged := n.Setup != nil && n.Setup.Roles[ledger.Judge].Models != nil
		for _, t := range h.waiting(n.StartedAt, n.until(now)) {
			if took[t.ID] {
				continue
			}
			s.Waiting++
			if judged && !t.Scored {
				s.Unscored++
			}
		}
		if s.Waiting > 0 {
			if len(s.Workers) == 0 && n.Setup != nil {
				s.Workers = n.Setup.Roles[ledger.Builder].Models
			}
			out = append(out, s)
		}
	}
	return out
}

// until is when the night ended, or now while it runs.
func (n Night) until(now time.Time) time.Time {
	if n.Ended() {
		return n.EndedAt
	}
	return now
}

// SilentRun is a silent failure of one role that has lasted since the
// role last succeeded: the nights it covers, with their counts summed.
// Only one that lasts to the report is unresolved: a night on which the
// role succeeded again (a call that worked; a task done) settles it.
type SilentRun struct {
	Kind    string      `json:"kind"`
	Role    ledger.Role `json:"role"`
	Workers []string    `json:"workers"`
	// Nights are the nights it happened on, oldest first.
	Nights []string `json:"nights"`
	Calls  int      `json:"calls"`
	Failed int      `json:"failed"`
	Empty  int      `json:"empty"`
	// Waiting and Unscored are the latest night's.
	Waiting  int `json:"waiting_tasks,omitempty"`
	Unscored int `json:"unscored_tasks,omitempty"`
	// Last is the latest night's last failure.
	Last string `json:"last,omitempty"`
	// Do says what a person does about it, and Commands the commands
	// that help.
	Do       string   `json:"do"`
	Commands []string `json:"commands"`
}

// silentRuns are the covered nights' silent failures not settled since,
// a run per role and kind.
func silentRuns(covered []Night, cfg Config) []SilentRun {
	var out []SilentRun
	for _, role := range ledger.Roles {
		var run *SilentRun
		for _, n := range covered {
			i := slices.IndexFunc(n.Silent, func(s Silent) bool { return s.Role == role })
			if i < 0 {
				if n.succeeded(role) {
					run = nil
				}
				continue
			}
			s := n.Silent[i]
			if run == nil {
				run = &SilentRun{Kind: s.Kind, Role: role}
			}
			run.Nights = append(run.Nights, n.Name)
			for _, w := range s.Workers {
				if !slices.Contains(run.Workers, w) {
					run.Workers = append(run.Workers, w)
				}
			}
			run.Calls, run.Failed, run.Empty = run.Calls+s.Calls, run.Failed+s.Failed, run.Empty+s.Empty
			run.Waiting, run.Unscored, run.Last = s.Waiting, s.Unscored, s.Last
		}
		if run != nil {
			out = append(out, *run)
		}
	}
	for i := range out {
		r := &out[i]
		switch {
		case r.Kind == FinishedNothing && r.Unscored == r.Waiting && r.Unscored > 0 && slices.ContainsFunc(out, func(o SilentRun) bool { return o.Role == ledger.Judge }):
			r.Do = "the tasks wait for scores the judge never gives (see the judge's item): fix the judge, and the builder takes them"
		case r.Kind == FinishedNothing:
			r.Do = "each night's account says why (its failures, how it ended); the task list shows what waits"
		case r.Role == ledger.Judge:
			r.Do = "a lost call is charged to the call, so nothing stops and nothing is scored: read the judge's replies and fix its prompt or model (roles.judge in the pipeline)"
		default:
			r.Do = "a lost call is charged to the call, so nothing stops and no idea comes: read the proposer's replies and fix its prompt or model (roles.proposer in the pipeline)"
		}
		r.Commands = []string{}
		if r.Kind == FinishedNothing {
			r.Commands = append(r.Commands, command(cfg, "task", "list"))
		}
	}
	return out
}

// succeeded reports whether the role did what it is for in the night:
// a call that worked (proposer, judge), a task done (builder).
func (n Night) succeeded(role ledger.Role) bool {
	if role == ledger.Builder {
		return n.Tasks.Done > 0
	}
	return n.Succeeded[role] > 0
}
