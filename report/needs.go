package report

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
)

// Needs is what needs a person, in the order a person should look at it.
// Seed 003: "Parked is worse than failed. [...] Waiting costs nothing that
// anyone sees, so nothing pushes anyone to fix it": the report's first
// lines push.
type Needs struct {
	// Parked are the actions waiting for a person's answer (past their
	// deadline first), approved ones that have not run yet, and the ones
	// that expired unanswered in the covered nights.
	Parked []ParkedAction `json:"parked"`
	// Stops are the system stops not yet dealt with: the latest nights,
	// each stopped until a person acts.
	Stops []Stop `json:"system_stops"`
	// FailedEveryModel are the tasks still in the backlog that failed on
	// every model of their role, with the last one in two nights: no
	// model is left for the escalation rule to hand them to.
	FailedEveryModel []Exhausted `json:"failed_on_every_model"`
	// Unverified are results no verifier passed, of tasks not done since:
	// a person must look.
	Unverified []Unverified `json:"unverified"`
	// CutShort are the covered nights failure handling cut short (other
	// than the stops above), the latest first.
	CutShort []CutShortNight `json:"cut_short"`
}

// Empty reports whether nothing needs a person.
func (n Needs) Empty() bool { return n.Count() == 0 }

// Count counts what needs a person.
func (n Needs) Count() int {
	return len(n.Parked) + len(n.Stops) + len(n.FailedEveryModel) + len(n.Unverified) + len(n.CutShort)
}

// The states of a parked action, in the order the report lists them.
const (
	PastDeadline   = "past-deadline"
	Waiting        = "waiting"
	ApprovedNotRun = "approved-not-run"
	Expired        = "expired"
)

// ParkedAction is a parked action, with what a person can do about it.
type ParkedAction struct {
	Task  int64  `json:"task"`
	Title string `json:"title"`
	// Action is the exact call the task parked on (as the gate described
	// it: a tool's name and JSON input).
	Action string `json:"action"`
	Reason string `json:"reason,omitempty"`
	// Status is PastDeadline (no answer, its deadline passed, and no
	// night has settled it yet: an answer still counts), Waiting,
	// ApprovedNotRun or Expired (nobody answered; the night settled it).
	Status   string    `json:"status"`
	AskedAt  time.Time `json:"asked_at"`
	Deadline time.Time `json:"deadline"`
	// Since is when it started waiting: parked, or approved; For is how
	// long until the report.
	Since time.Time     `json:"since"`
	For   time.Duration `json:"for_ns"`
	// Approve and Deny are the commands that answer it, while an answer
	// counts.
	Approve string `json:"approve,omitempty"`
	Deny    string `json:"deny,omitempty"`
	// Then says what became of an expired action's task.
	Then string `json:"then,omitempty"`
}

// Stop is a system stop that waits for a person.
type Stop struct {
	Night string    `json:"night"`
	At    time.Time `json:"at"`
	// Reason is how the night recorded its end; Rule and Cause name the
	// system-scope failure that stopped it.
	Reason string `json:"reason"`
	Rule   string `json:"rule,omitempty"`
	Cause  string `json:"cause,omitempty"`
	// WindowEnd is when the stopped night's window closes: until then
	// `nightshift night` resumes it.
	WindowEnd time.Time `json:"window_end"`
	// Do says what a person does next.
	Do string `json:"do"`
}

// Exhausted is a task that failed on every model of its role.
type Exhausted struct {
	Task  int64       `json:"task"`
	Title string      `json:"title"`
	Role  ledger.Role `json:"role"`
	// Models are the role's models it failed on, every one.
	Models []string `json:"models"`
	// Attempts counts its failed attempts; Last is the latest one's
	// failure.
	Attempts int    `json:"attempts"`
	Last     string `json:"last"`
}

// Unverified is a builder attempt that ended without a PASS.
type Unverified struct {
	Task   int64     `json:"task"`
	Title  string    `json:"title"`
	Night  string    `json:"night"`
	Step   int64     `json:"step"`
	Worker string    `json:"worker"`
	At     time.Time `json:"at"`
	Checks []string  `json:"failed_checks,omitempty"`
	Reason string    `json:"reason,omitempty"`
	// Answer is the start of the unverified answer.
	Answer string `json:"answer,omitempty"`
}

// CutShortNight is a night failure handling cut short.
type CutShortNight struct {
	Night  string         `json:"night"`
	At     time.Time      `json:"at"`
	End    ledger.EndKind `json:"end"`
	Reason string         `json:"reason"`
	// Resumed is set when the night was resumed after a system stop.
	Resumed bool `json:"resumed,omitempty"`
}

func needs(ctx context.Context, l *ledger.Ledger, now time.Time, cfg Config, all []ledger.Night, covered []Night, tasks map[int64]ledger.Task) (Needs, error) {
	var out Needs
	var from time.Time
	if len(covered) > 0 {
		from = covered[0].WindowStart
	}
	var err error
	if out.Parked, err = parked(ctx, l, now, cfg, from, tasks); err != nil {
		return out, err
	}
	if out.Stops, err = stops(ctx, l, now, all); err != nil {
		return out, err
	}
	if out.FailedEveryModel, err = exhausted(ctx, l, all, covered, tasks); err != nil {
		return out, err
	}
	listed := map[int64]bool{}
	for _, e := range out.FailedEveryModel {
		listed[e.Task] = true
	}
	out.Unverified = unverified(covered, tasks, listed)
	stopped := map[string]bool{}
	for _, s := range out.Stops {
		stopped[s.Night] = true
	}
	for _, n := range slices.Backward(covered) {
		if n.CutShort && !stopped[n.Name] {
			c := CutShortNight{Night: n.Name, At: n.EndedAt, End: n.End, Reason: n.Reason, Resumed: len(n.Stops) > 0}
			if c.Resumed && n.End != ledger.CutShort && n.End != ledger.SystemStopped {
				// It ran on after a stop: the stop is what cut it short.
				st := n.Stops[0]
				c.At, c.End, c.Reason = st.At, st.End, st.Reason
			}
			out.CutShort = append(out.CutShort, c)
		}
	}
	// Empty lists are written [] in JSON, not null: "nothing" is an answer.
	out.Parked, out.Stops = nonNil(out.Parked), nonNil(out.Stops)
	out.FailedEveryModel, out.Unverified, out.CutShort = nonNil(out.FailedEveryModel), nonNil(out.Unverified), nonNil(out.CutShort)
	return out, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// parked lists the parked actions that need a person: every one still
// waiting for an answer, every approved one not run yet, and the ones
// that expired since from.
func parked(ctx context.Context, l *ledger.Ledger, now time.Time, cfg Config, from time.Time, tasks map[int64]ledger.Task) ([]ParkedAction, error) {
	ps, err := l.ParkedActions(ctx)
	if err != nil {
		return nil, err
	}
	var out []ParkedAction
	for _, p := range ps {
		w := ParkedAction{Task: p.Task, Title: tasks[p.Task].Title, Action: p.Action, Reason: p.Reason,
			AskedAt: p.AskedAt, Deadline: p.Deadline, Since: p.AskedAt}
		switch {
		case p.Decision == ledger.Undecided && !now.Before(p.Deadline):
			w.Status = PastDeadline
		case p.Decision == ledger.Undecided:
			w.Status = Waiting
		case p.Decision == ledger.Approved && !p.Used:
			w.Status, w.Since = ApprovedNotRun, p.DecidedAt
		case p.Decision == ledger.Expired && !p.DecidedAt.Before(from):
			w.Status, w.Since = Expired, p.DecidedAt
			w.Then = "nobody answered by the deadline: the task went back to the queue"
			if tasks[p.Task].State == ledger.Failed {
				w.Then = "nobody answered by the deadline: the task failed"
			}
		default:
			continue
		}
		if p.Decision == ledger.Undecided {
			w.Approve, w.Deny = command(cfg, "task", "approve", fmt.Sprint(p.Task)), command(cfg, "task", "deny", fmt.Sprint(p.Task))
		}
		w.For = now.Sub(w.Since)
		out = append(out, w)
	}
	rank := map[string]int{PastDeadline: 0, Waiting: 1, ApprovedNotRun: 2, Expired: 3}
	sort.SliceStable(out, func(i, j int) bool {
		if rank[out[i].Status] != rank[out[j].Status] {
			return rank[out[i].Status] < rank[out[j].Status]
		}
		return out[i].Deadline.Before(out[j].Deadline)
	})
	return out, nil
}

// stops lists the latest nights that a system stop ended, back to the
// last night that ended any other way: a night that ran on after a stop
// says a person dealt with it.
func stops(ctx context.Context, l *ledger.Ledger, now time.Time, all []ledger.Night) ([]Stop, error) {
	var out []Stop
	for _, n := range slices.Backward(all) {
		if n.End != ledger.SystemStopped {
			break
		}
		s := Stop{Night: n.Name, At: n.EndedAt, Reason: n.Reason, WindowEnd: n.WindowEnd}
		fs, err := l.Failures(ctx, n.ID)
		if err != nil {
			return nil, err
		}
		for _, f := range slices.Backward(fs) {
			if f.Scope == ledger.SystemScope {
				s.Rule, s.Cause = f.Rule, f.Reason
				break
			}
		}
		s.Do = "fix the cause, then run the next night"
		if now.Before(n.WindowEnd) {
			s.Do = fmt.Sprintf("fix the cause, then `nightshift night` again before %s: it resumes the night",
				n.WindowEnd.UTC().Format("2006-01-02 15:04 MST"))
		}
		out = append(out, s)
	}
	return out, nil
}

// exhausted lists the tasks still in the backlog that failed on every
// model of the builder, as the escalation rule counts: a failed attempt
// with each model, and with the last one in two nights (with a next model
// the task would have gone on to it). The models are the latest night's
// setup's or, for a ledger of an earlier version, the builder workers
// seen in the covered nights.
func exhausted(ctx context.Context, l *ledger.Ledger, all []ledger.Night, covered []Night, tasks map[int64]ledger.Task) ([]Exhausted, error) {
	var models []string
	for _, n := range slices.Backward(all) {
		s, err := l.NightSetup(ctx, n.ID)
		if errors.Is(err, ledger.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		models = s.Roles[ledger.Builder].Models
		break
	}
	if models == nil {
		for _, n := range covered {
			for _, r := range n.Timeline.Rows {
				if r.Role == ledger.Builder && !slices.Contains(models, r.Worker) {
					models = append(models, r.Worker)
				}
			}
		}
	}
	if len(models) == 0 {
		return nil, nil
	}
	failed, err := l.FailedSteps(ctx, ledger.Builder)
	if err != nil {
		return nil, err
	}
	type seen struct {
		on         map[string]bool
		lastNights map[int64]bool
		attempts   int
		last       ledger.Step
	}
	lastModel := models[len(models)-1]
	by := map[int64]*seen{}
	var order []int64
	for _, s := range failed {
		if s.Task == 0 {
			continue
		}
		e := by[s.Task]
		if e == nil {
			e = &seen{on: map[string]bool{}, lastNights: map[int64]bool{}}
			by[s.Task] = e
			order = append(order, s.Task)
		}
		e.on[s.Worker] = true
		if s.Worker == lastModel {
			e.lastNights[s.Night] = true
		}
		e.attempts++
		e.last = s
	}
	var out []Exhausted
	for _, id := range order {
		t, e := tasks[id], by[id]
		if t.State != ledger.Queued && t.State != ledger.Claimed {
			continue
		}
		if !everyOne(models, e.on) || len(e.lastNights) < 2 {
			continue
		}
		last := e.last.Outcome
		if e.last.Reason != "" {
			last += ": " + e.last.Reason
		}
		out = append(out, Exhausted{Task: id, Title: t.Title, Role: ledger.Builder, Models: models, Attempts: e.attempts, Last: clip(last, 300)})
	}
	return out, nil
}

func everyOne(models []string, on map[string]bool) bool {
	for _, m := range models {
		if !on[m] {
			return false
		}
	}
	return true
}

// unverified lists the covered nights' unverified builder attempts, the
// latest per task, of tasks neither done nor failed since and not listed
// already.
func unverified(covered []Night, tasks map[int64]ledger.Task, listed map[int64]bool) []Unverified {
	latest := map[int64]Unverified{}
	var order []int64
	for _, n := range covered {
		for _, s := range n.steps {
			if s.Role != ledger.Builder || s.Task == 0 || s.Outcome != "unverified" {
				continue
			}
			if _, ok := latest[s.Task]; !ok {
				order = append(order, s.Task)
			}
			latest[s.Task] = Unverified{Task: s.Task, Title: tasks[s.Task].Title, Night: n.Name, Step: s.ID, Worker: s.Worker,
				At: s.EndedAt, Checks: s.Checks, Reason: s.Reason, Answer: clip(s.Answer, 200)}
		}
	}
	var out []Unverified
	for _, id := range order {
		if s := tasks[id].State; s == ledger.Done || s == ledger.Failed || listed[id] {
			continue
		}
		out = append(out, latest[id])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.After(out[j].At) })
	return out
}

// command writes a nightshift command a person can paste, with the
// report's --db.
func command(cfg Config, args ...string) string {
	c := "nightshift " + strings.Join(args, " ")
	if cfg.DB != "" {
		c += " --db " + shellQuote(cfg.DB)
	}
	return c
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// clip shortens s to at most n runes, on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func itoa(n int) string { return fmt.Sprint(n) }
