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
	// From and To are the night's real span, the axis the page draws:
	// from its window's start to its end (or now, while it runs), or to
	// its last step's end when that came later; never less than
	// MinSpan.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Spans are what the steps do not show: workers sitting out the rest
	// of the night, tasks waiting for a person, and the night sitting
	// idle for a person's answer.
	Spans []Span `json:"spans"`
}

// MinSpan is the shortest span a timeline's axis covers: a night cut
// short three minutes in is drawn across ten minutes, not as a few
// pixels of an eight-hour window.
const MinSpan = 10 * time.Minute

// The kinds of span.
const (
	// SittingOut is a worker out for the rest of the night (a
	// worker-scope failure), on its row.
	SittingOut = "sitting-out"
	// WaitingForAPerson is a parked task waiting for a person's answer.
	WaitingForAPerson = "waiting-for-a-person"
	// IdleWaiting is the night with no step running while a parked task
	// waited: only a person's answer could give it work.
	IdleWaiting = "idle-waiting"
	// WaitingForProvider is a worker sitting out while its provider was
	// down (its endpoint's circuit breaker open: the night's rule
	// waiting-for-provider), until it came back (its first attempt after
	// that was not unavailable) or the night ended.
	WaitingForProvider = "waiting-for-provider"
)

// waitingForProvider is the night's rule of a worker charged for its
// provider's outage (package night), which sends it out only while the
// outage lasts.
const waitingForProvider = "waiting-for-provider"

// Span is a stretch of the night that is no step.
type Span struct {
	Kind   string      `json:"kind"`
	Role   ledger.Role `json:"role,omitempty"`
	Worker string      `json:"worker,omitempty"`
	Task   int64       `json:"task,omitempty"`
	Start  time.Time   `json:"start"`
	End    time.Time   `json:"end"`
	Detail string      `json:"detail"`
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

// timeline lays a night's steps out by worker, with the spans that are
// no step.
func timeline(n Night, steps []ledger.Step, failures map[int64][]ledger.Failure, all []ledger.Failure, h *history, now time.Time) Timeline {
	tasks := h.tasks
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
	end := n.until(now)
	t.From, t.To = n.WindowStart, end
	for _, s := range steps {
		t.From = minTime(t.From, s.StartedAt)
		if !s.EndedAt.IsZero() {
			t.To = maxTime(t.To, s.EndedAt)
		}
	}
	if t.To.Sub(t.From) < MinSpan {
		t.To = t.From.Add(MinSpan)
	}
	t.Spans = spans(n, steps, all, h, end, t.Location())
	return t
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// spans finds what the steps do not show, until end (when the night
// ended, or now): the workers sent out for the rest of the night, each
// parked task's wait for a person, and the stretches with no step
// running while one waited.
func spans(n Night, steps []ledger.Step, failures []ledger.Failure, h *history, end time.Time, loc *time.Location) []Span {
	hm := func(t time.Time) string { return t.In(loc).Format("15:04") }
	out := []Span{}
	gone := map[ledger.WorkerKey]bool{}
	for _, f := range failures {
		k := ledger.WorkerKey{Role: f.Role, Worker: f.Worker}
		if f.Scope == ledger.WorkerScope && f.Rule == waitingForProvider && !f.At.After(end) {
			out = append(out, outageSpan(f, steps, end, hm))
			continue
		}
		if f.Scope != ledger.WorkerScope || gone[k] || f.At.After(end) {
			continue
		}
		gone[k] = true
		out = append(out, Span{Kind: SittingOut, Role: f.Role, Worker: f.Worker, Start: f.At, End: end,
			Detail: fmt.Sprintf("%s/%s sits out the rest of the night from %s: %s %s: %s", f.Role, f.Worker, hm(f.At), f.Scope, f.Rule, f.Reason)})
	}
	var waits []Span
	for _, p := range h.parked {
		to := end
		if p.Decision != ledger.Undecided && p.DecidedAt.Before(to) {
			to = p.DecidedAt
		}
		from := maxTime(p.AskedAt, n.StartedAt)
		if !from.Before(to) {
			continue
		}
		d := fmt.Sprintf("task %d %q waits for a person's answer %s–%s to %s; deadline %s", p.Task, clip(h.tasks[p.Task].Title, 120),
			hm(from), hm(to), clip(p.Action, 200), stamp(p.Deadline, loc))
		switch p.Decision {
		case ledger.Undecided:
		case ledger.Withdrawn:
			d += "; the task was dropped " + hm(p.DecidedAt)
		default:
			d += fmt.Sprintf("; %s %s", p.Decision, stamp(p.DecidedAt, loc))
		}
		waits = append(waits, Span{Kind: WaitingForAPerson, Task: p.Task, Start: from, End: to, Detail: d})
	}
	out = append(out, waits...)
	// The night sat idle where a task waited and no step ran.
	var busy [][2]time.Time
	for _, s := range steps {
		e := s.EndedAt
		if e.IsZero() {
			e = end
		}
		busy = append(busy, [2]time.Time{s.StartedAt, e})
	}
	var waiting [][2]time.Time
	for _, w := range waits {
		waiting = append(waiting, [2]time.Time{w.Start, w.End})
	}
	for _, iv := range subtract(union(waiting), union(busy)) {
		out = append(out, Span{Kind: IdleWaiting, Start: iv[0], End: iv[1],
			Detail: fmt.Sprintf("the night sat idle %s–%s (%s): no step could run, only a person's answer could give it work", hm(iv[0]), hm(iv[1]), Human(iv[1].Sub(iv[0])))})
	}
	return out
}

// union merges intervals into disjoint ones, in order.
func union(ivs [][2]time.Time) [][2]time.Time {
	ivs = slices.Clone(ivs)
	slices.SortFunc(ivs, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
	var out [][2]time.Time
	for _, iv := range ivs {
		if !iv[0].Before(iv[1]) {
			continue
		}
		if k := len(out); k > 0 && !iv[0].After(out[k-1][1]) {
			out[k-1][1] = maxTime(out[k-1][1], iv[1])
			continue
		}
		out = append(out, iv)
	}
	return out
}

// subtract is what of a (disjoint, in order) b (the same) does not cover.
func subtract(a, b [][2]time.Time) [][2]time.Time {
	var out [][2]time.Time
	for _, iv := range a {
		from := iv[0]
		for _, c := range b {
			if !c[1].After(from) || !c[0].Before(iv[1]) {
				continue
			}
			if c[0].After(from) {
				out = append(out, [2]time.Time{from, c[0]})
			}
			from = maxTime(from, c[1])
		}
		if from.Before(iv[1]) {
			out = append(out, [2]time.Time{from, iv[1]})
		}
	}
	return out
}

// waited sums the night's idle waits for a person, and says whether its
// window closed while it sat so.
func waited(n Night) (time.Duration, bool) {
	var d time.Duration
	endedWaiting := false
	for _, s := range n.Timeline.Spans {
		if s.Kind != IdleWaiting {
			continue
		}
		d += s.End.Sub(s.Start)
		endedWaiting = n.End == ledger.WindowClosed && !s.End.Before(n.EndedAt)
	}
	return d, endedWaiting
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
		fmt.Fprintf(&b, "task %d %q · ", s.Task, clip(m.Title, 120))
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

// outageSpan is the span of a worker's wait for its provider, charged by
// f: from the start of the attempt that met the outage to the start of
// its first step after f that did not end unavailable (it came back), or
// to end.
func outageSpan(f ledger.Failure, steps []ledger.Step, end time.Time, hm func(time.Time) string) Span {
	from, to := f.At, end
	for _, s := range steps {
		if s.ID == f.Step && s.StartedAt.Before(from) {
			from = s.StartedAt
		}
	}
	for _, s := range steps {
		if s.Role == f.Role && s.Worker == f.Worker && s.StartedAt.After(f.At) && s.Outcome != "unavailable" && s.StartedAt.Before(to) {
			to = s.StartedAt
		}
	}
	return Span{Kind: WaitingForProvider, Role: f.Role, Worker: f.Worker, Start: from, End: to,
		Detail: fmt.Sprintf("%s/%s waits for its provider %s–%s: %s", f.Role, f.Worker, hm(from), hm(to), f.Reason)}
}
