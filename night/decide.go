package night

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
)

// Decide chooses what a job of the night does, in the ledger's
// transaction that claims its step: end the night, take a step (the
// continuation of an interrupted attempt first, then the proposer, the
// judge and the builder, as in seed 003's pipeline), rest until a step in
// flight is recorded, or wait for a person.
//
// Everything it reads goes through tx: the ledger's connection is the
// transaction's while it runs.
func (s *scheduler) Decide(ctx context.Context, tx *ledger.Tx) (ledger.Plan, error) {
	for {
		p, nightWait, err := s.decide(ctx, tx)
		if err != nil || !nightWait || !s.simulated {
			return p, err
		}
		// On a simulated clock a wait is taken at once: the clock moves
		// on, and the night decides again on the same state.
		if err := s.clk.Sleep(ctx, p.Wait); err != nil {
			return ledger.Plan{}, err
		}
	}
}

// decide decides once; nightWait says the plan is a wait by the night's
// clock (for a person), which a simulated clock takes at once.
func (s *scheduler) decide(ctx context.Context, tx *ledger.Tx) (p ledger.Plan, nightWait bool, err error) {
	n := tx.Night()
	now := s.clk.Now()
	if !now.Before(n.WindowEnd) {
		st, err := s.load(ctx, tx, true)
		if err != nil {
			return ledger.Plan{}, false, err
		}
		if why, down := s.providerDown(st); down {
			return s.endPlan(tx, ledger.ProviderDown, why), false, nil
		}
		return s.endPlan(tx, ledger.WindowClosed, s.windowClosed(n)), false, nil
	}
	st, err := s.load(ctx, tx, true)
	if err != nil {
		return ledger.Plan{}, false, err
	}
	if p, ok := s.stopPlan(tx, st); ok {
		return p, false, nil
	}
	if why := s.budgetSpent(st); why != "" {
		return s.endPlan(tx, ledger.CeilingsReached, why), false, nil
	}
	if c := s.p.Roles[ledger.Builder].Ceiling; n.Reserved[ledger.Builder] >= c {
		return s.endPlan(tx, ledger.CeilingsReached, ceilingReason(c)), false, nil
	}
	if c := tx.Continue; c != nil {
		p, err := s.continuePlan(ctx, tx, st, *c)
		return p, false, err
	}
	v, err := s.view(ctx, tx, st)
	if err != nil {
		return ledger.Plan{}, false, err
	}
	for _, role := range []ledger.Role{ledger.Proposer, ledger.Judge, ledger.Builder} {
		p, ok, err := s.tryStep(ctx, tx, st, role, v)
		if err != nil || ok {
			return p, false, err
		}
	}
	switch {
	case v.inFlight > 0:
		// A step running now may give the night work (a new idea, a
		// score, a task back in the queue): rest until it is recorded.
		return ledger.Plan{Idle: true}, false, nil
	case !v.leaseEnd.IsZero():
		// Another owner's interrupted attempt holds a task until its
		// lease runs out.
		return ledger.Plan{Wait: max(v.leaseEnd.Sub(tx.Wall()), time.Second)}, false, nil
	}
	if wait := s.waitFor(st, v); wait > 0 {
		return ledger.Plan{Wait: wait}, true, nil
	}
	if wait := s.nextProbe(st); wait > 0 {
		// A worker waits for its provider: the night waits with it,
		// until its breaker's cool-off ends and a call may probe, or
		// the window closes.
		return ledger.Plan{Wait: min(wait, n.WindowEnd.Sub(now))}, true, nil
	}
	kind, why := s.whyIdle(st, v)
	return s.endPlan(tx, kind, why), false, nil
}

// endPlan ends the night, and says so once the end is committed.
func (s *scheduler) endPlan(tx *ledger.Tx, kind ledger.EndKind, reason string) ledger.Plan {
	tx.AfterCommit(func() { s.emitEnd(kind, reason) })
	return ledger.Plan{End: &ledger.End{Kind: kind, Reason: reason, At: s.clk.Now()}}
}

func (s *scheduler) emitEnd(kind ledger.EndKind, reason string) {
	s.emit("night-end", fmt.Sprintf("%s: %s", kind, reason), map[string]any{"end": kind, "reason": reason})
}

// stopPlan ends the night a night- or system-scope failure stopped.
func (s *scheduler) stopPlan(tx *ledger.Tx, st *tonight) (ledger.Plan, bool) {
	switch st.stop {
	case ledger.SystemScope:
		return s.endPlan(tx, ledger.SystemStopped, "stopped until a person acts: "+st.stopWhy), true
	case ledger.NightScope:
		return s.endPlan(tx, ledger.CutShort, "a failure stopped the night: "+st.stopWhy), true
	}
	return ledger.Plan{}, false
}

// view is the backlog as the scheduler sees it before a step.
type view struct {
	// takeable are the queued tasks the builder may take tonight, in
	// order; unscored are those still waiting for the judge.
	takeable, unscored []ledger.Task
	// wip counts the tasks in progress that some builder can still take
	// tonight: skipped and parked tasks, and tasks whose every builder
	// model from their level on is out, do not hold the proposer (seed
	// 003: the cap stayed full and the idea agent stopped too).
	wip                     int
	queued, skipped, parked int
	// unreachable counts queued tasks no builder can take tonight.
	unreachable int
	// waiting are the parked actions no person has answered yet.
	waiting []ledger.ParkedAction
	// inFlight counts the night's steps running now, anywhere, and this
	// owner's interrupted steps whose continuation is queued.
	inFlight int
	// leaseEnd is when the first lease of another owner's interrupted
	// step runs out, by the wall clock; zero when none holds a task.
	leaseEnd time.Time
}

func (s *scheduler) view(ctx context.Context, tx *ledger.Tx, st *tonight) (*view, error) {
	tasks, err := tx.ActiveTasks(ctx)
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(tasks, func(t ledger.Task) bool { return t.State == ledger.Parked }) {
		// Parking deadlines pass by the night's clock: the ones past are
		// settled before the night looks at its backlog.
		expired, err := tx.ExpireCharged(ctx, s.clk.Now(), s.p.Park.PastDeadline == "requeue", s.rules.Ledger(ParkDeadline, ledger.Builder))
		if err != nil {
			return nil, err
		}
		for _, p := range expired {
			st.skip[p.Task] = "parked past its deadline"
		}
		if len(expired) > 0 {
			if tasks, err = tx.ActiveTasks(ctx); err != nil {
				return nil, err
			}
		}
	}
	judged := s.p.Roles[ledger.Judge] != nil
	v := &view{}
	for _, t := range tasks {
		switch t.State {
		case ledger.Parked:
			v.parked++
			continue
		case ledger.Claimed:
			v.wip++
			continue
		case ledger.Queued:
		default:
			continue
		}
		v.queued++
		if _, skip := st.skip[t.ID]; skip {
			v.skipped++
			continue
		}
		if _, _, ok := s.available(st, ledger.Builder, t.Level); !ok {
			v.unreachable++
			continue
		}
		v.wip++
		if judged && !t.Scored && !t.Front {
			v.unscored = append(v.unscored, t)
			continue
		}
		v.takeable = append(v.takeable, t)
	}
	if v.parked > 0 {
		if v.waiting, err = tx.Waiting(ctx); err != nil {
			return nil, err
		}
	}
	running, err := tx.Running(ctx)
	if err != nil {
		return nil, err
	}
	v.inFlight = len(running)
	pending, err := tx.Pending(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range pending {
		switch {
		case p.Owner == tx.Owner():
			v.inFlight++
		case v.leaseEnd.IsZero() || p.LeaseUntil.Before(v.leaseEnd):
			v.leaseEnd = p.LeaseUntil
		}
	}
	return v, nil
}

// ceilingLeft reports whether the role may take another step tonight.
func (s *scheduler) ceilingLeft(n ledger.Night, role ledger.Role) bool {
	r := s.p.Roles[role]
	return r != nil && (r.Ceiling == 0 || n.Reserved[role] < r.Ceiling)
}

// available returns the role's first worker at or after level that is not
// out tonight, with its index.
func (s *scheduler) available(st *tonight, role ledger.Role, level int) (string, int, bool) {
	r := s.p.Roles[role]
	if r == nil {
		return "", 0, false
	}
	for i := level; i < len(r.Models); i++ {
		w := worker{role, r.Models[i]}
		if _, out := st.out[w]; out {
			continue
		}
		if s.waitingOn(st, w) {
			continue
		}
		if b := s.p.Models[w.model].BudgetTokens; b > 0 && st.tokens[w] >= b {
			continue
		}
		return w.model, i, true
	}
	return "", 0, false
}

// whyIdle says, in words, why no worker can do anything useful, and
// whether that cut the night short (every worker of a role out) or the
// night is out of work.
func (s *scheduler) whyIdle(st *tonight, v *view) (ledger.EndKind, string) {
	kind := ledger.OutOfWork
	var parts []string
	for _, role := range []ledger.Role{ledger.Builder, ledger.Judge, ledger.Proposer} {
		r := s.p.Roles[role]
		if r == nil {
			continue
		}
		if _, _, ok := s.available(st, role, 0); !ok {
			kind = ledger.CutShort
			var outs []string
			for _, m := range r.Models {
				outs = append(outs, m+": "+cmp.Or(st.out[worker{role, m}], "token budget spent"))
			}
			parts = append(parts, fmt.Sprintf("every %s worker is out (%s)", role, strings.Join(outs, "; ")))
		} else if !s.ceilingLeft(st.night, role) {
			parts = append(parts, fmt.Sprintf("the %s reached its ceiling", role))
		}
	}
	what := fmt.Sprintf("nothing takeable: %d queued, %d skipped tonight, %d parked", v.queued, v.skipped, v.parked)
	if v.unreachable > 0 {
		what += fmt.Sprintf(", %d waiting for a builder model that is out", v.unreachable)
	}
	parts = append(parts, what)
	return kind, "no worker can do anything useful: " + strings.Join(parts, "; ")
}

// waitFor returns how long to wait for a person's answer to a parked task,
// or 0 when no answer could come in the window.
func (s *scheduler) waitFor(st *tonight, v *view) time.Duration {
	if len(v.waiting) == 0 {
		return 0
	}
	now := s.clk.Now()
	wait := min(s.cfg.Idle, st.night.WindowEnd.Sub(now))
	for _, p := range v.waiting {
		if d := p.Deadline.Sub(now); d > 0 && d < wait {
			wait = d
		}
	}
	return max(wait, time.Millisecond)
}

// ceilingReason is the end reason of a night whose builder reached its
// ceiling of c steps ("of 1 step", not "of 1 steps").
func ceilingReason(c int) string {
	if c == 1 {
		return "the builder reached its ceiling of 1 step"
	}
	return fmt.Sprintf("the builder reached its ceiling of %d steps", c)
}
