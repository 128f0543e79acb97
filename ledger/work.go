package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/nightshift-dev/nightshift/clock"
)

// Handler decides a night's steps. The ledger calls Decide in the
// transaction that claims the step, so that what it reads through the Tx
// (tonight's failures, tokens, tasks, the night's reservations) is what
// every process has committed, and nothing changes it before the step is
// recorded.
type Handler interface {
	Decide(ctx context.Context, tx *Tx) (Plan, error)
}

// Plan is what one job does: take a step (Claim, then Work), end the
// night (End), rest until a step in flight is recorded (Idle), or look
// again later (Wait).
type Plan struct {
	// Claim is the step to take; Work does it.
	Claim *Claim
	Work  StepFunc
	// End ends the night.
	End *End
	// Idle says that nothing can be done until a step running now (here
	// or in another process) is recorded: the job ends, and the record of
	// the next step to end, anywhere, queues its chain again.
	Idle bool
	// Wait is how long, by the wall clock, before River hands the job out
	// again (River's snooze): a night with nothing to do but wait for a
	// person or for a lease to run out. 0 is at once.
	Wait time.Duration
}

// End is how a night ended.
type End struct {
	Kind   EndKind
	Reason string
	// At is when, by the night's clock.
	At time.Time
}

// StepFunc does a step's work, outside any transaction, on the job's
// context: the process's shutdown (Worker.Interrupt, River's
// StopAndCancel) cancels it. It returns how to record the step.
type StepFunc func(ctx context.Context, s Step) SettleFunc

// SettleFunc turns what a step did into its Result, in the transaction
// that records the step and completes its job: the failures it charges,
// the workers it sends out and the budgets it spends are decided there,
// on the night's state as it is then.
type SettleFunc func(ctx context.Context, tx *Tx) (Result, error)

// WorkConfig is how a process works a night.
type WorkConfig struct {
	// Night is the night to work. Required.
	Night int64
	// Handler decides the night's steps. Required.
	Handler Handler
	// Clock dates what the ledger records by itself (steps it finds
	// interrupted); default clock.Real{}.
	Clock clock.Clock
	// Recover is called for each step this owner left running when its
	// process died, before it is recorded interrupted: it says whether
	// the step's changes are kept for its continuation, or were undone
	// (the task is retried from its start), and what the step had spent
	// by its own last record. Default: kept, spent unknown.
	Recover func(ctx context.Context, s Step) (Recovery, error)
	// Poll is how often, by the wall clock, the worker looks whether
	// another process ended the night, and whether River has settled the
	// jobs of a dead process's steps; default 1s.
	Poll time.Duration
	// Settled is told when River has settled the job of a step this
	// owner's dead process left running (see Work). Default: nothing.
	Settled func(job int64, state string)
	// SettleWait bounds how long Stop waits for River to settle those
	// jobs; default 2m, more than River takes to elect a new leader after
	// the dead one (15s) and run its rescuer (every 30s).
	SettleWait time.Duration
}

// Worker is a process working a night: its River client, working the
// night's queue (shared by every process that joined the night) and its
// owner's queue (the continuations only this owner may run).
type Worker struct {
	l     *Ledger
	cfg   WorkConfig
	night int64

	ended    chan struct{}
	endOnce  sync.Once
	stopPoll context.CancelFunc

	mu      sync.Mutex
	running map[int64]bool
	stopped bool

	// marked are the jobs of a dead process's steps that join marked for
	// cancellation; settled is closed once River has settled them all.
	marked  []int64
	settled chan struct{}
}

// Work joins the night and starts working its steps as River jobs, until
// Stop or Interrupt. Joining records this process among the night's
// members, bringing its step chains (Config.Concurrency of them, once per
// night and resumption); it also recovers the steps this owner left
// running when an earlier process of it died: each is recorded
// interrupted, its River job marked for cancellation (River settles it),
// and its continuation queued in the owner's queue, where this process
// takes it first.
func (l *Ledger) Work(ctx context.Context, cfg WorkConfig) (*Worker, error) {
	if cfg.Handler == nil || cfg.Night == 0 {
		return nil, errors.New("ledger: Work needs a night and a handler")
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	if cfg.Recover == nil {
		cfg.Recover = func(context.Context, Step) (Recovery, error) { return Recovery{Keep: true}, nil }
	}
	if cfg.Settled == nil {
		cfg.Settled = func(int64, string) {}
	}
	if cfg.SettleWait <= 0 {
		cfg.SettleWait = 2 * time.Minute
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.working != nil {
		return nil, ErrWorking
	}
	w := &Worker{l: l, cfg: cfg, night: cfg.Night, ended: make(chan struct{}), running: map[int64]bool{}, settled: make(chan struct{})}
	if err := l.b.newClient(w); err != nil {
		return nil, fmt.Errorf("ledger: river client: %w", err)
	}
	if err := w.join(ctx); err != nil {
		l.b.stop(ctx, false) //nolint:errcheck // never started
		return nil, fmt.Errorf("ledger: join night %d: %w", cfg.Night, err)
	}
	if err := l.b.start(ctx); err != nil {
		l.b.stop(ctx, false) //nolint:errcheck // already failing
		return nil, fmt.Errorf("ledger: start river: %w", err)
	}
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w.stopPoll = cancel
	go w.poll(pctx)
	go w.watchSettled(pctx)
	l.working = w
	return w, nil
}

// watchSettled waits for River to settle the jobs join marked: their
// process died while running them, so only River's rescuer (on its leader,
// once elected) can end them, as cancelled.
func (w *Worker) watchSettled(ctx context.Context) {
	defer close(w.settled)
	left := w.marked
	t := time.NewTicker(w.cfg.Poll)
	defer t.Stop()
	for len(left) > 0 {
		var still []int64
		for _, id := range left {
			state, err := w.l.b.jobState(ctx, id)
			switch {
			case err != nil || strings.HasPrefix(state, string(rivertype.JobStateRunning)):
				still = append(still, id)
			default:
				w.cfg.Settled(id, state)
			}
		}
		if left = still; len(left) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Ended is closed once this process knows the night ended: it ended it,
// or saw it ended.
func (w *Worker) Ended() <-chan struct{} { return w.ended }

func (w *Worker) markEnded() { w.endOnce.Do(func() { close(w.ended) }) }

// Stop stops taking steps and waits for the ones running here to be
// recorded (River's Stop).
func (w *Worker) Stop(ctx context.Context) error { return w.halt(ctx, false) }

// Interrupt stops taking steps and cancels the ones running here (River's
// StopAndCancel): each is recorded as its StepFunc's context ending makes
// it (interrupted, its changes kept for its continuation), and it returns
// once they are.
func (w *Worker) Interrupt(ctx context.Context) error { return w.halt(ctx, true) }

func (w *Worker) halt(ctx context.Context, cancel bool) error {
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return nil
	}
	w.stopped = true
	w.mu.Unlock()
	if !cancel {
		// Leave no job of a dead process running behind: River settles
		// them while its client runs here.
		t := time.NewTimer(w.cfg.SettleWait)
		select {
		case <-w.settled:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	w.stopPoll()
	<-w.settled // watchSettled reads through the client stop is about to drop
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	err := w.l.b.stop(ctx, cancel)
	w.l.working = nil
	return err
}

// poll notices a night another process ended while this one has nothing
// running.
func (w *Worker) poll(ctx context.Context) {
	t := time.NewTicker(w.cfg.Poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.ended:
			return
		case <-t.C:
		}
		if n, err := w.l.Night(ctx, w.night); err == nil && n.Ended() {
			w.markEnded()
		}
	}
}

func (w *Worker) setRunning(step int64, on bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if on {
		w.running[step] = true
	} else {
		delete(w.running, step)
	}
}

func (w *Worker) isRunning(step int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.running[step]
}

// jobRef is the job being worked.
type jobRef struct {
	id      int64
	args    StepArgs
	attempt int
}

// txFunc runs fn in a transaction.
type txFunc func(ctx context.Context, fn func(q querier, ops jobOps) error) error

// recordTimeout bounds the transaction that records an interrupted step:
// its context has ended, and the process is on its way out.
const recordTimeout = 30 * time.Second

// work works one job: in one transaction it settles what earlier
// attempts left, lets the Handler decide on the night's state and claims
// the step; it does the step on the job's context; and in a second
// transaction it records the step and queues the chain's next job (or the
// step's continuation, in this owner's queue). River completes the job
// when work returns; should its process die before River has, the job's
// next attempt finds its step recorded and does nothing more.
//
// (River's JobCompleteTx would complete the job in the recording
// transaction instead; but River's completer writes every job's end
// anyway, so it would cost a second update of the job per step, about a
// sixth of a step's bookkeeping on SQLite, to close a window the
// rule above already closes.)
func (w *Worker) work(ctx context.Context, job jobRef, inTx txFunc) error {
	var (
		plan Plan
		step Step
		wait time.Duration = -1
		done bool
		t    *Tx
	)
	err := inTx(ctx, func(q querier, ops jobOps) error {
		var err error
		if t, err = w.l.openTx(ctx, q, ops, w.night); err != nil {
			return err
		}
		if t.night.Ended() {
			done = true
			return nil
		}
		if err := w.takeOver(ctx, t); err != nil {
			return err
		}
		cont, snooze, recorded, err := w.leftBy(ctx, t, job)
		if err != nil || snooze > 0 || recorded {
			wait, done = snooze, recorded
			return err
		}
		if job.args.Continue != 0 {
			c, err := stepByID(ctx, q, job.args.Continue)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			if err != nil || !c.Pending || c.Owner != w.l.owner {
				// Continued already, or taken over after its lease.
				done = true
				return nil
			}
			cont = &c
		}
		t.Continue = cont
		if plan, err = w.cfg.Handler.Decide(ctx, t); err != nil {
			return err
		}
		switch {
		case plan.End != nil:
			done = true
			return w.end(ctx, t, *plan.End)
		case plan.Claim != nil:
			step, err = w.l.claim(ctx, t, *plan.Claim, job.id)
			return err
		case plan.Idle:
			done = true
			if job.args.Continue == 0 {
				_, err := q.exec(ctx, "UPDATE ns_nights SET idle_chains = idle_chains + 1 WHERE id = ?", w.night)
				return err
			}
			return nil
		}
		wait = max(plan.Wait, 0)
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			// Stopped before the step began: River's way to hand the job
			// to the next process at once (JobSnooze's doc).
			return river.JobSnooze(0)
		}
		return err
	}
	t.runAfter()
	switch {
	case done:
		if t.night.Ended() {
			w.markEnded()
		}
		return nil
	case wait >= 0:
		return river.JobSnooze(wait)
	}
	w.setRunning(step.ID, true)
	settle := plan.Work(ctx, step)
	w.setRunning(step.ID, false)
	rctx := ctx
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
		defer cancel()
	}
	var rt *Tx
	err = inTx(rctx, func(q querier, ops jobOps) error {
		var err error
		if rt, err = w.l.openTx(rctx, q, ops, w.night); err != nil {
			return err
		}
		res, err := settle(rctx, rt)
		if err != nil {
			return err
		}
		rec, err := w.l.record(rctx, rt, step, res)
		if err != nil {
			return fmt.Errorf("ledger: record step %d: %w", step.ID, err)
		}
		if rec.Pending {
			id, err := ops.insert(rctx, StepArgs{Night: w.night, Continue: rec.ID}, ownerQueue(w.l.owner))
			if err != nil {
				return err
			}
			if _, err := q.exec(rctx, "UPDATE ns_steps SET cont_job = ? WHERE id = ?", id, rec.ID); err != nil {
				return err
			}
		}
		if res.End != nil && !rt.night.Ended() {
			if err := w.end(rctx, rt, *res.End); err != nil {
				return err
			}
		}
		if !rt.night.Ended() {
			// The chain goes on, and the chains that waited for a step to
			// be recorded with it: each next step is a job any process of
			// the night may take.
			n := rt.night.idleChains
			if job.args.Continue == 0 {
				n++
			}
			return w.requeue(rctx, rt, n)
		}
		return nil
	})
	if err != nil {
		return err
	}
	rt.runAfter()
	if rt.night.Ended() {
		w.markEnded()
	}
	return nil
}

// requeue queues n chain jobs of the night, the idle chains among them.
func (w *Worker) requeue(ctx context.Context, t *Tx, n int) error {
	if t.night.idleChains > 0 {
		if _, err := t.q.exec(ctx, "UPDATE ns_nights SET idle_chains = 0 WHERE id = ?", w.night); err != nil {
			return err
		}
		t.night.idleChains = 0
	}
	if n == 0 {
		return nil
	}
	return t.ops.insertN(ctx, StepArgs{Night: w.night}, nightQueue(w.night), n)
}

// end ends the night in t and drops the night's jobs that wait to run:
// the steps running elsewhere finish and find it ended.
func (w *Worker) end(ctx context.Context, t *Tx, e End) error {
	if err := endNightRow(ctx, t.q, w.night, e); err != nil {
		return err
	}
	t.night.EndedAt, t.night.End, t.night.Reason = fromMS(max(ms(e.At), 1)), e.Kind, e.Reason
	return t.ops.dropQueued(ctx, nightQueue(w.night))
}

// leftBy settles the step an earlier attempt of this job left. River runs
// a job again only when its process died (its rescuer, once the lease ran
// out) or its record failed. A step recorded already means the job's work
// is done (recorded). A step left running: its owner continues it here;
// another owner waits for the lease, then records it interrupted and
// retries the task from its start.
func (w *Worker) leftBy(ctx context.Context, t *Tx, job jobRef) (cont *Step, snooze time.Duration, recorded bool, err error) {
	if job.attempt <= 1 {
		return nil, 0, false, nil
	}
	ss, err := querySteps(ctx, t.q, "job_id = ?", job.id)
	if err != nil || len(ss) == 0 {
		return nil, 0, false, err
	}
	s := ss[len(ss)-1]
	if s.State != Running {
		return nil, 0, true, nil
	}
	now := w.cfg.Clock.Now()
	switch {
	case s.Owner == w.l.owner && w.isRunning(s.ID):
		// River handed the job out again while its first attempt, here,
		// is still recording (it ran past its lease): let it finish.
		return nil, time.Second, false, nil
	case s.Owner == w.l.owner:
		rec, err := w.cfg.Recover(ctx, s)
		if err != nil {
			return nil, 0, false, err
		}
		s, err = w.l.interrupt(ctx, t.q, s, rec, "its attempt ended without a record (its process died); continued by the same owner", now)
		if err != nil || !s.Pending {
			return nil, 0, false, err
		}
		return &s, 0, false, nil
	case s.Owner != w.l.owner && w.l.wall.Now().Before(s.LeaseUntil):
		return nil, s.LeaseUntil.Sub(w.l.wall.Now()), false, nil
	}
	// Its owner's records (a run's checkpoint) are that owner's: what
	// it spent is unknown here.
	_, err = w.l.interrupt(ctx, t.q, s, Recovery{}, fmt.Sprintf("owner %s did not finish it within its lease of %s; retried from its start by %s",
		s.Owner, w.l.lease, w.l.owner), now)
	return nil, 0, false, err
}

// takeOver gives back the pending steps of other owners whose lease ran
// out: nobody came back to continue them, so their continuation job is
// cancelled and their task is retried from its start, here or anywhere.
func (w *Worker) takeOver(ctx context.Context, t *Tx) error {
	ss, err := t.inFlight(ctx)
	if err != nil {
		return err
	}
	now := w.l.wall.Now()
	kept := ss[:0:0]
	for _, s := range ss {
		if !s.Pending || s.Owner == w.l.owner || !s.LeaseUntil.Before(now) {
			kept = append(kept, s)
			continue
		}
		if err := t.ops.cancel(ctx, s.ContJob); err != nil {
			return err
		}
		reason := fmt.Sprintf("%s; not continued by owner %s within its lease of %s: retried from its start", s.Reason, s.Owner, w.l.lease)
		if _, err := t.q.exec(ctx, "UPDATE ns_steps SET pending = 0, reason = ? WHERE id = ? AND pending = 1", reason, s.ID); err != nil {
			return err
		}
		if _, err := t.q.exec(ctx, "UPDATE ns_tasks SET state = ?, front = 1, updated_at = ? WHERE id = ? AND state = ?",
			Queued, ms(w.cfg.Clock.Now()), s.Task, Claimed); err != nil {
			return err
		}
	}
	t.flight = kept
	return nil
}

// join records this process among the night's members, bringing its
// step chains once per night and resumption, and recovers the steps its
// owner left behind.
func (w *Worker) join(ctx context.Context) error {
	return w.l.b.inTx(ctx, func(q querier, ops jobOps) error {
		t, err := w.l.openTx(ctx, q, ops, w.night)
		if err != nil {
			return err
		}
		now := w.cfg.Clock.Now()
		// Steps an earlier process of this owner was running when it died.
		dead, err := querySteps(ctx, q, "state = ? AND owner = ?", Running, w.l.owner)
		if err != nil {
			return err
		}
		for _, s := range dead {
			rec, err := w.cfg.Recover(ctx, s)
			if err != nil {
				return err
			}
			if s, err = w.l.interrupt(ctx, q, s, rec, "the process died during the step", now); err != nil {
				return err
			}
			state, args, err := ops.jobState(ctx, s.Job)
			if err != nil {
				return err
			}
			// Its job still reads running; River's rescuer cancels it
			// rather than run it again.
			if err := ops.cancel(ctx, s.Job); err != nil {
				return err
			}
			if state == rivertype.JobStateRunning {
				w.marked = append(w.marked, s.Job)
			}
			if state != "" && args.Continue == 0 && s.Night == w.night && !t.night.Ended() {
				// It was a link of this night's chains: one replaces it.
				if _, err := ops.insert(ctx, StepArgs{Night: w.night}, nightQueue(w.night)); err != nil {
					return err
				}
			}
		}
		// Pending steps of this owner whose continuation is gone: it was
		// cancelled, or found its night ended.
		pending, err := querySteps(ctx, q, "state = ? AND pending = 1 AND owner = ?", Interrupted, w.l.owner)
		if err != nil {
			return err
		}
		for _, s := range pending {
			if s.ContJob != 0 {
				state, _, err := ops.jobState(ctx, s.ContJob)
				if err != nil {
					return err
				}
				if state != "" && state != rivertype.JobStateCompleted && state != rivertype.JobStateCancelled && state != rivertype.JobStateDiscarded {
					continue
				}
			}
			id, err := ops.insert(ctx, StepArgs{Night: w.night, Continue: s.ID}, ownerQueue(w.l.owner))
			if err != nil {
				return err
			}
			if _, err := q.exec(ctx, "UPDATE ns_steps SET cont_job = ? WHERE id = ?", id, s.ID); err != nil {
				return err
			}
		}
		if t.night.Ended() {
			return nil
		}
		// Chains left idle by steps that will never be recorded (their
		// process died) go on.
		if err := w.requeue(ctx, t, t.night.idleChains); err != nil {
			return err
		}
		var epoch int
		err = q.queryRow(ctx, "SELECT epoch FROM ns_members WHERE night_id = ? AND owner = ?", w.night, w.l.owner).Scan(&epoch)
		switch {
		case err == nil && epoch >= t.night.Epoch:
			return nil // joined already: its chains go on
		case err == nil:
			_, err = q.exec(ctx, "UPDATE ns_members SET epoch = ?, joined_at = ? WHERE night_id = ? AND owner = ?",
				t.night.Epoch, ms(now), w.night, w.l.owner)
		case isNoRows(err):
			_, err = q.exec(ctx, "INSERT INTO ns_members (night_id, owner, epoch, joined_at) VALUES (?, ?, ?, ?)",
				w.night, w.l.owner, t.night.Epoch, ms(now))
		}
		if err != nil {
			return err
		}
		for range w.l.concurrency {
			if _, err := ops.insert(ctx, StepArgs{Night: w.night}, nightQueue(w.night)); err != nil {
				return err
			}
		}
		return nil
	})
}
