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
// lines push. Each kind has its list; Items orders what is still
// unresolved by urgency, each with what broke, what to do and the
// commands that do it, and Total counts them.
type Needs struct {
	// Total counts Items: what needs a person now.
	Total int `json:"count"`
	// Items are what needs a person, the most urgent first: system
	// stops, then what expires first (parked actions, by deadline), then
	// silent failures, nights cut short, tasks failed on every model and
	// unverified results.
	Items []Item `json:"items"`
	// Parked are the actions waiting for a person's answer (past their
	// deadline first), and, for the record (not counted: nobody need
	// act), approved ones that have not run yet and the ones that
	// expired unanswered in the covered nights.
	Parked []ParkedAction `json:"parked"`
	// Stops are the system stops not yet dealt with: the latest nights,
	// each stopped until a person acts.
	Stops []Stop `json:"system_stops"`
	// Silent are the silent failures that last to the latest covered
	// night: a role that has not succeeded since.
	Silent []SilentRun `json:"silent_failures"`
	// FailedEveryModel are the tasks still in the backlog that failed on
	// every model of their role, with the last one in two nights: no
	// model is left for the escalation rule to hand them to.
	FailedEveryModel []Exhausted `json:"failed_on_every_model"`
	// Unverified are results no verifier passed, of tasks neither done,
	// failed nor dropped since: a person must look.
	Unverified []Unverified `json:"unverified"`
	// CutShort are the nights failure handling cut short (other than the
	// stops above) since the last night that was not: a night that ran
	// on since settles the ones before it, which stay in the nights'
	// accounts and the counts across nights.
	CutShort []CutShortNight `json:"cut_short"`
}

// Empty reports whether nothing needs a person.
func (n Needs) Empty() bool { return n.Count() == 0 }

// Count counts what needs a person: the items (made from the lists when
// a Needs was put together by hand).
func (n Needs) Count() int { return len(n.items(time.Time{}, time.UTC)) }

// The kinds of item, each from its list.
const (
	KindStop       = "system-stop"
	KindParked     = "parked"
	KindSilent     = "silent-failure"
	KindCutShort   = "cut-short"
	KindExhausted  = "failed-on-every-model"
	KindUnverified = "unverified"
)

// Item is one thing that needs a person.
type Item struct {
	Kind string `json:"kind"`
	// List and Index name the item's entry in its list:
	// needs_a_person.<list>[<index>].
	List  string `json:"list"`
	Index int    `json:"index"`
	Night string `json:"night,omitempty"`
	Task  int64  `json:"task,omitempty"`
	// Title is the task's whole title; What has it clipped to
	// TitleRunes.
	Title string `json:"title,omitempty"`
	// What says what broke; When when, and how long ago or until.
	What string `json:"what"`
	When string `json:"when,omitempty"`
	// Do says what to do, and Commands are the commands that do it,
	// ready to paste (empty when no command does it).
	Do       string   `json:"do"`
	Commands []string `json:"commands"`
	// Deadline is when the chance to act runs out (a parked action's
	// deadline, a stopped night's window end); zero when none.
	Deadline time.Time `json:"deadline,omitzero"`
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

// counted reports whether a person must act on the action: an answer
// still counts.
func (p ParkedAction) counted() bool { return p.Status == PastDeadline || p.Status == Waiting }

// Stop is a system stop that waits for a person.
type Stop struct {
	Night string    `json:"night"`
	At    time.Time `json:"at"`
	// Reason is how the night recorded its end; Rule and Cause name the
	// system-scope failure that stopped it.
	Reason string `json:"reason"`
	Rule   string `json:"rule,omitempty"`
	Cause  string `json:"cause,omitempty"`
	// Role and Worker are whose call or build failed; Provider, Model
	// and KeyEnv the worker's model and the variable its key is read
	// from (never the key), when the night's setup names them.
	Role     ledger.Role `json:"role,omitempty"`
	Worker   string      `json:"worker,omitempty"`
	Provider string      `json:"provider,omitempty"`
	Model    string      `json:"model,omitempty"`
	KeyEnv   string      `json:"key_env,omitempty"`
	// WindowEnd is when the stopped night's window closes: until then
	// `nightshift night` resumes it.
	WindowEnd time.Time `json:"window_end"`
	// Do says what a person does next, and Commands the command that
	// runs the night again (when the setup names its pipeline file).
	Do       string   `json:"do"`
	Commands []string `json:"commands"`
}

// Exhausted is a task that failed on every model of its role.
type Exhausted struct {
	Task  int64       `json:"task"`
	Title string      `json:"title"`
	Role  ledger.Role `json:"role"`
	// Models are the role's models it failed on, every one.
	Models []string `json:"models"`
	// Attempts counts its failed attempts, ByHand the failures a person
	// recorded on it (they count as the escalation rule counts them);
	// Last is the latest one's failure.
	Attempts int    `json:"attempts"`
	ByHand   int    `json:"by_hand,omitempty"`
	Last     string `json:"last"`
	// Steps counts the builder steps it took in the covered nights, of
	// Of, every builder step they finished.
	Steps int `json:"builder_steps"`
	Of    int `json:"of_builder_steps"`
	// Drop is the command that gives it up.
	Drop string `json:"drop"`
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
	// Show is the command that shows its latest attempt: the verdict and
	// the diff of its changes.
	Show string `json:"show"`
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

func needs(ctx context.Context, l *ledger.Ledger, now time.Time, loc *time.Location, cfg Config, all []ledger.Night, covered []Night, h *history) (Needs, error) {
	var out Needs
	var from time.Time
	if len(covered) > 0 {
		from = covered[0].WindowStart
	}
	var err error
	out.Parked = parked(now, cfg, from, h)
	if out.Stops, err = stops(ctx, l, now, cfg, all); err != nil {
		return out, err
	}
	out.Silent = silentRuns(covered, cfg)
	if out.FailedEveryModel, err = exhausted(ctx, l, cfg, all, covered, h); err != nil {
		return out, err
	}
	listed := map[int64]bool{}
	for _, e := range out.FailedEveryModel {
		listed[e.Task] = true
	}
	out.Unverified = unverified(cfg, covered, h.tasks, listed)
	out.CutShort = cutShort(covered, out.Stops)
	out.Items = out.items(now, loc)
	out.Total = len(out.Items)
	return out, nil
}

// cutShort lists the nights cut short since the last covered night that
// was not, the latest first, but the stops listed already.
func cutShort(covered []Night, stops []Stop) []CutShortNight {
	stopped := map[string]bool{}
	for _, s := range stops {
		stopped[s.Night] = true
	}
	var out []CutShortNight
	for _, n := range slices.Backward(covered) {
		if !n.CutShort {
			break
		}
		if stopped[n.Name] {
			continue
		}
		c := CutShortNight{Night: n.Name, At: n.EndedAt, End: n.End, Reason: n.Reason, Resumed: len(n.Stops) > 0}
		if c.Resumed && n.End != ledger.CutShort && n.End != ledger.SystemStopped {
			// It ran on after a stop: the stop is what cut it short.
			st := n.Stops[0]
			c.At, c.End, c.Reason = st.At, st.End, st.Reason
		}
		out = append(out, c)
	}
	return out
}

// parked lists the parked actions: every one still waiting for an
// answer, every approved one not run yet, and the ones that expired
// since from.
func parked(now time.Time, cfg Config, from time.Time, h *history) []ParkedAction {
	var out []ParkedAction
	for _, p := range h.parked {
		w := ParkedAction{Task: p.Task, Title: h.tasks[p.Task].Title, Action: p.Action, Reason: p.Reason,
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
			if h.tasks[p.Task].State == ledger.Failed {
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
	return out
}

// stops lists the latest nights that a system stop ended, back to the
// last night that ended any other way: a night that ran on after a stop
// says a person dealt with it.
func stops(ctx context.Context, l *ledger.Ledger, now time.Time, cfg Config, all []ledger.Night) ([]Stop, error) {
	var out []Stop
	for _, n := range slices.Backward(all) {
		if n.End != ledger.SystemStopped {
			break
		}
		s := Stop{Night: n.Name, At: n.EndedAt, Reason: n.Reason, WindowEnd: n.WindowEnd, Commands: []string{}}
		fs, err := l.Failures(ctx, n.ID)
		if err != nil {
			return nil, err
		}
		for _, f := range slices.Backward(fs) {
			if f.Scope == ledger.SystemScope {
				s.Rule, s.Cause, s.Role, s.Worker = f.Rule, f.Reason, f.Role, f.Worker
				break
			}
		}
		setup, err := l.NightSetup(ctx, n.ID)
		if err != nil && !errors.Is(err, ledger.ErrNotFound) {
			return nil, err
		}
		if m, ok := setup.Models[s.Worker]; ok {
			s.Provider, s.Model, s.KeyEnv = m.Provider, m.Model, m.KeyEnv
		}
		fix := "fix the cause"
		if s.KeyEnv != "" && (s.Rule == "auth" || strings.Contains(s.Cause, s.KeyEnv)) {
			fix = fmt.Sprintf("set %s to a key %s accepts", s.KeyEnv, s.Provider)
		}
		s.Do = fix + ", then run the next night"
		if now.Before(n.WindowEnd) {
			s.Do = fmt.Sprintf("%s, then run the night again before %s: it resumes the night", fix,
				n.WindowEnd.In(setup.Location()).Format("2006-01-02 15:04 MST"))
		}
		if setup.Pipeline != "" {
			s.Commands = append(s.Commands, command(cfg, "night", "--pipeline", shellQuote(setup.Pipeline)))
		}
		out = append(out, s)
	}
	return out, nil
}

// exhausted lists the tasks still in the backlog that failed on every
// model of the builder, as the escalation rule counts: a failed attempt
// (or a failure recorded by hand at its level) with each model, and with
// the last one in two nights (failures recorded between nights count
// one each; with a next model the task would have gone on to it). The
// models are the latest night's setup's or, for a ledger of an earlier
// version, the builder workers seen in the covered nights.
func exhausted(ctx context.Context, l *ledger.Ledger, cfg Config, all []ledger.Night, covered []Night, h *history) ([]Exhausted, error) {
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
		between    int
		attempts   int
		byHand     int
		last       string
	}
	last := len(models) - 1
	by := map[int64]*seen{}
	var order []int64
	get := func(task int64) *seen {
		e := by[task]
		if e == nil {
			e = &seen{on: map[string]bool{}, lastNights: map[int64]bool{}}
			by[task] = e
			order = append(order, task)
		}
		return e
	}
	for _, s := range failed {
		if s.Task == 0 {
			continue
		}
		e := get(s.Task)
		e.on[s.Worker] = true
		if s.Worker == models[last] {
			e.lastNights[s.Night] = true
		}
		e.attempts++
		e.last = s.Outcome
		if s.Reason != "" {
			e.last += ": " + s.Reason
		}
	}
	for _, f := range h.manual {
		if f.Task == 0 {
			continue
		}
		e := get(f.Task)
		level := min(f.Level, last)
		e.on[models[level]] = true
		if level == last {
			if f.Night == 0 {
				e.between++
			} else {
				e.lastNights[f.Night] = true
			}
		}
		e.byHand++
		e.last = "by hand: " + f.Reason
	}
	steps, of := map[int64]int{}, 0
	for _, n := range covered {
		for _, s := range n.steps {
			if s.Role == ledger.Builder && s.State != ledger.Interrupted && s.State != ledger.Running {
				steps[s.Task]++
				of++
			}
		}
	}
	var out []Exhausted
	for _, id := range order {
		t, e := h.tasks[id], by[id]
		if t.State != ledger.Queued && t.State != ledger.Claimed {
			continue
		}
		if !everyOne(models, e.on) || len(e.lastNights)+e.between < 2 {
			continue
		}
		out = append(out, Exhausted{Task: id, Title: t.Title, Role: ledger.Builder, Models: models, Attempts: e.attempts, ByHand: e.byHand,
			Last: clip(e.last, 300), Steps: steps[id], Of: of, Drop: command(cfg, "task", "drop", fmt.Sprint(id))})
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
// latest per task, of tasks neither done, failed nor dropped since and
// not listed already.
func unverified(cfg Config, covered []Night, tasks map[int64]ledger.Task, listed map[int64]bool) []Unverified {
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
				At: s.EndedAt, Checks: s.Checks, Reason: s.Reason, Answer: clip(s.Answer, 200), Show: command(cfg, "task", "show", fmt.Sprint(s.Task))}
		}
	}
	var out []Unverified
	for _, id := range order {
		if s := tasks[id].State; s == ledger.Done || s == ledger.Failed || s == ledger.Dropped || listed[id] {
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

func itoa(n int) string { return fmt.Sprint(n) }
