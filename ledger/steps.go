package ledger

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/llm/models"
)

// Claim describes a step to start.
type Claim struct {
	Role   Role
	Worker string
	// Level is the worker's index in the role's model list.
	Level int
	// Task is the task a builder step works on, or 0.
	Task int64
	// Ceiling is the role's step ceiling for the night; 0 means none.
	Ceiling int
	// At is when the step starts, by the night's clock.
	At time.Time
	// Continues is the pending step this one continues (Tx.Continue):
	// its task stays claimed, and the step is no longer pending.
	Continues int64
}

// Result is what a step did, recorded in the transaction that completes its
// River job.
type Result struct {
	// State is Finished, StepFailed, StepParked or Interrupted.
	State   StepState
	Outcome string
	Reason  string
	Answer  string
	Checks  []string
	// Tokens, CacheWriteTokens, CacheReadTokens and Cost are what the
	// step spent (see Step); the zero Cost is Unknown, recorded as NULL.
	Tokens           int64
	CacheWriteTokens int64
	CacheReadTokens  int64
	Cost             models.Cost
	// At is when the step ended, by the night's clock.
	At time.Time
	// Pending keeps an interrupted builder step's task claimed for its
	// continuation: its changes stay in the task's workspace, its journal
	// pending. The step's owner continues it (a job in its own queue),
	// unless the lease runs out first.
	Pending bool
	// TaskState is the claimed task's state afterwards; empty means
	// Queued (back in the backlog, perhaps skipped tonight).
	TaskState TaskState
	// Escalate moves the claimed task to the role's next model.
	Escalate bool
	// Failures are recorded with the step; Night, Step, Task, Role,
	// Worker, Level and At default to the step's.
	Failures []Failure
	// NewTasks are the proposer's ideas.
	NewTasks []NewTask
	// DroppedTasks counts the proposer's ideas past the WIP cap, not
	// added: the step's event says how many; the ledger keeps nothing of
	// them.
	DroppedTasks int
	// Scores are the judge's scores, by task ID.
	Scores map[int64]float64
	// Park parks the claimed task with the action it asked about.
	Park *ParkedAction
	// UsedApprovals are approved parked actions this step ran.
	UsedApprovals []int64
	// End ends the night with the step (a spent budget).
	End *End
}

// The statements of every step (see hot).
var (
	reserveSQL    = map[Role]string{}
	claimTaskSQL  = hotSQL("UPDATE ns_tasks SET state = ?, front = 0, updated_at = ? WHERE id = ? AND state = ?")
	insertStepSQL = hotSQL(`INSERT INTO ns_steps (night_id, role, worker, level, task_id, job_id, owner, state, started_at, lease_until, continues)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`)
	recordStepSQL = hotSQL(`UPDATE ns_steps SET state = ?, outcome = ?, reason = ?, answer = ?, checks = ?, tokens = ?,
		cache_write_tokens = ?, cache_read_tokens = ?, cost_usd = ?, ended_at = ?, pending = ?, lease_until = ? WHERE id = ?`)
	spendSQL = hotSQL(`INSERT INTO ns_tokens (night_id, role, worker, tokens, cache_write_tokens, cache_read_tokens, cost_usd, unpriced)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (night_id, role, worker) DO UPDATE SET tokens = ns_tokens.tokens + excluded.tokens,
		cache_write_tokens = ns_tokens.cache_write_tokens + excluded.cache_write_tokens,
		cache_read_tokens = ns_tokens.cache_read_tokens + excluded.cache_read_tokens,
		cost_usd = ns_tokens.cost_usd + excluded.cost_usd, unpriced = ns_tokens.unpriced + excluded.unpriced`)
	settleTaskSQL = hotSQL("UPDATE ns_tasks SET state = ?, level = level + ?, updated_at = ? WHERE id = ?")
)

func init() {
	for _, r := range Roles {
		col := string(r) + "_steps"
		reserveSQL[r] = hotSQL("UPDATE ns_nights SET " + col + " = " + col + " + 1 WHERE id = ? AND ended_at = 0 AND (? = 0 OR " + col + " < ?)")
	}
}

// claim starts a step in t: it reserves the step's place under the role's
// ceiling, claims its task (or takes over the pending step it continues)
// and writes the step's row, with the job that runs it.
func (l *Ledger) claim(ctx context.Context, t *Tx, c Claim, job int64) (Step, error) {
	if !c.Role.Valid() {
		return Step{}, fmt.Errorf("ledger: unknown role %q", c.Role)
	}
	q := t.q
	n, err := q.exec(ctx, reserveSQL[c.Role], t.night.ID, c.Ceiling, c.Ceiling)
	if err != nil {
		return Step{}, err
	}
	if n == 0 {
		return Step{}, ErrCeiling
	}
	t.night.Reserved[c.Role]++
	switch {
	case c.Continues != 0:
		n, err = q.exec(ctx, "UPDATE ns_steps SET pending = 0 WHERE id = ? AND pending = 1 AND owner = ?", c.Continues, l.owner)
	case c.Task != 0:
		n, err = q.exec(ctx, claimTaskSQL, Claimed, ms(c.At), c.Task, Queued)
	default:
		n = 1
	}
	if err != nil {
		return Step{}, err
	}
	if n == 0 {
		return Step{}, ErrTaken
	}
	s := Step{Night: t.night.ID, Role: c.Role, Worker: c.Worker, Level: c.Level, Task: c.Task, Job: job,
		Owner: l.owner, State: Running, StartedAt: c.At.UTC(), Continues: c.Continues,
		LeaseUntil: fromMS(ms(l.wall.Now().Add(l.lease)))}
	err = q.queryRow(ctx, insertStepSQL, s.Night, s.Role, s.Worker, s.Level, s.Task, s.Job, s.Owner, s.State, ms(c.At), ms(s.LeaseUntil), s.Continues).Scan(&s.ID)
	return s, err
}

// record writes a step's result in t, the transaction that completes its
// job.
func (l *Ledger) record(ctx context.Context, t *Tx, s Step, res Result) (Step, error) {
	q := t.q
	s.State = res.State
	if s.State == "" || s.State == Running {
		s.State = Finished
	}
	s.Outcome, s.Reason, s.Answer, s.Checks, s.Tokens = res.Outcome, res.Reason, res.Answer, res.Checks, res.Tokens
	s.CacheWriteTokens, s.CacheReadTokens, s.Cost = res.CacheWriteTokens, res.CacheReadTokens, res.Cost
	s.EndedAt = res.At.UTC()
	s.Pending = s.State == Interrupted && res.Pending && s.Task != 0
	if s.Pending {
		s.LeaseUntil = fromMS(ms(l.wall.Now().Add(l.lease)))
	}
	usd, known := s.Cost.USD()
	var cost any // NULL: unknown
	if known {
		cost = usd
	}
	if _, err := q.exec(ctx, recordStepSQL, s.State, s.Outcome, s.Reason, s.Answer, strings.Join(s.Checks, "\n"), s.Tokens,
		s.CacheWriteTokens, s.CacheReadTokens, cost, ms(res.At), b2i(s.Pending), ms(s.LeaseUntil), s.ID); err != nil {
		return s, err
	}
	// The night's running totals, which its budgets read: a step that
	// spent nothing known to cost anything changes none of them.
	if s.Tokens != 0 || !known || usd != 0 {
		if _, err := q.exec(ctx, spendSQL, s.Night, s.Role, s.Worker, s.Tokens, s.CacheWriteTokens, s.CacheReadTokens,
			usd, b2i(!known)); err != nil {
			return s, err
		}
	}
	if s.State == Interrupted {
		// An interrupted step gives its place under the ceiling back; its
		// task goes first in the queue, or waits for the continuation.
		if err := giveBack(ctx, q, s, s.Pending, res.At); err != nil {
			return s, err
		}
	} else if s.Task != 0 {
		state := res.TaskState
		if state == "" {
			state = Queued
		}
		if res.Park != nil {
			state = Parked
		}
		if _, err := q.exec(ctx, settleTaskSQL, state, b2i(res.Escalate), ms(res.At), s.Task); err != nil {
			return s, err
		}
	}
	for _, f := range res.Failures {
		f.Night, f.Step = s.Night, s.ID
		if f.Task == 0 {
			f.Task = s.Task
		}
		if f.Role == "" {
			f.Role = s.Role
		}
		if f.Worker == "" {
			f.Worker = s.Worker
			f.Level = s.Level
		}
		if f.At.IsZero() {
			f.At = res.At
		}
		if _, err := insertFailure(ctx, q, f); err != nil {
			return s, err
		}
	}
	for _, nt := range res.NewTasks {
		if nt.Source == "" {
			nt.Source = string(Proposer)
		}
		if _, err := insertTask(ctx, q, nt, res.At); err != nil {
			return s, err
		}
	}
	for id, score := range res.Scores {
		if _, err := q.exec(ctx, "UPDATE ns_tasks SET score = ?, scored = 1, updated_at = ? WHERE id = ?", score, ms(res.At), id); err != nil {
			return s, err
		}
	}
	if p := res.Park; p != nil && s.Task != 0 {
		if _, err := q.exec(ctx, `INSERT INTO ns_parked (task_id, night_id, step_id, action, reason, asked_at, deadline)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, s.Task, s.Night, s.ID, p.Action, p.Reason, ms(res.At), ms(p.Deadline)); err != nil {
			return s, err
		}
	}
	for _, id := range res.UsedApprovals {
		if _, err := q.exec(ctx, "UPDATE ns_parked SET used = 1 WHERE id = ?", id); err != nil {
			return s, err
		}
	}
	return s, nil
}

// giveBack frees an interrupted step's place under its night's ceiling and
// puts its task first in the queue, unless the task waits for the step's
// continuation.
func giveBack(ctx context.Context, q querier, s Step, pending bool, at time.Time) error {
	col := string(s.Role) + "_steps"
	if _, err := q.exec(ctx, "UPDATE ns_nights SET "+col+" = "+col+" - 1 WHERE id = ? AND "+col+" > 0", s.Night); err != nil {
		return err
	}
	if s.Task == 0 || pending {
		return nil
	}
	_, err := q.exec(ctx, "UPDATE ns_tasks SET state = ?, front = 1, updated_at = ? WHERE id = ? AND state = ?",
		Queued, ms(at), s.Task, Claimed)
	return err
}

// Recovery is what WorkConfig.Recover found of a step whose process died.
type Recovery struct {
	// Keep: the step's changes are kept for its continuation; else they
	// were undone and its task is retried from its start.
	Keep bool
	// Spent is what the step's attempt had spent by its last record of
	// its own (a run's checkpoint), counted from the attempt's first
	// start as a resumed run's checkpoint counts: the steps it continues
	// recorded their share, which is taken off. Its row and the night's
	// totals take the rest. Nil when that is not known (the step's cost
	// stays unknown). What it spent after that record died with it.
	Spent *Spent
}

// Spent is what a step spent: its tokens, the prompt cache's share of
// them, and their cost.
type Spent struct {
	Tokens, CacheWriteTokens, CacheReadTokens int64
	Cost                                      models.Cost
}

// interrupt records a step that was running when its process died (or
// whose record was lost) as interrupted: pending, its task kept for its
// continuation, or given back to be retried from its start; with what it
// spent, when rec knows. (It recorded nothing: a step so recorded read
// unpriced, which made the night's cost "unknown" though every model is
// priced, and its tokens were missing from the night's, issue 23.)
func (l *Ledger) interrupt(ctx context.Context, q querier, s Step, rec Recovery, reason string, at time.Time) (Step, error) {
	s.State, s.Reason, s.EndedAt = Interrupted, reason, at.UTC()
	s.Pending = rec.Keep && s.Task != 0
	s.LeaseUntil = fromMS(ms(l.wall.Now().Add(l.lease)))
	var cost any // NULL: unknown
	var usd float64
	known := false
	if rec.Spent != nil {
		sp, err := ownShare(ctx, q, s, *rec.Spent)
		if err != nil {
			return s, err
		}
		s.Tokens, s.CacheWriteTokens, s.CacheReadTokens, s.Cost = sp.Tokens, sp.CacheWriteTokens, sp.CacheReadTokens, sp.Cost
		if usd, known = sp.Cost.USD(); known {
			cost = usd
		}
	}
	n, err := q.exec(ctx, `UPDATE ns_steps SET state = ?, reason = ?, ended_at = ?, pending = ?, lease_until = ?,
		tokens = ?, cache_write_tokens = ?, cache_read_tokens = ?, cost_usd = ? WHERE id = ? AND state = ?`,
		Interrupted, reason, ms(at), b2i(s.Pending), ms(s.LeaseUntil), s.Tokens, s.CacheWriteTokens, s.CacheReadTokens, cost, s.ID, Running)
	if err != nil || n == 0 {
		return s, err
	}
	// The night's running totals, as record keeps them, when the spend
	// is known: an unknown one is the step table's to say (NightSpend),
	// as before, and does not stop a budget-bound night.
	if rec.Spent != nil && (s.Tokens != 0 || !known || usd != 0) {
		if _, err := q.exec(ctx, spendSQL, s.Night, s.Role, s.Worker, s.Tokens, s.CacheWriteTokens, s.CacheReadTokens,
			usd, b2i(!known)); err != nil {
			return s, err
		}
	}
	return s, giveBack(ctx, q, s, s.Pending, at)
}

// ownShare is the step's own share of sp, its attempt's spend since the
// attempt first started: less what the steps it continues recorded.
func ownShare(ctx context.Context, q querier, s Step, sp Spent) (Spent, error) {
	for id := s.Continues; id != 0; {
		prev, err := stepByID(ctx, q, id)
		if err != nil {
			return sp, err
		}
		sp.Tokens -= prev.Tokens
		sp.CacheWriteTokens -= prev.CacheWriteTokens
		sp.CacheReadTokens -= prev.CacheReadTokens
		now, okNow := sp.Cost.USD()
		was, okWas := prev.Cost.USD()
		if okNow && okWas {
			sp.Cost = models.USD(now - was)
		} else {
			sp.Cost = models.Unknown
		}
		id = prev.Continues
	}
	// A checkpoint older than the steps' records (it cannot be, but a
	// negative spend would be worse than none).
	sp.Tokens, sp.CacheWriteTokens, sp.CacheReadTokens = max(sp.Tokens, 0), max(sp.CacheWriteTokens, 0), max(sp.CacheReadTokens, 0)
	if usd, ok := sp.Cost.USD(); ok && usd < 0 {
		sp.Cost = models.USD(0)
	}
	return sp, nil
}

const stepCols = `id, night_id, role, worker, level, task_id, job_id, owner, state, outcome, reason, answer, checks, tokens,
	cache_write_tokens, cache_read_tokens, cost_usd, started_at, ended_at, pending, continues, lease_until, cont_job`

func scanStep(r rows) (Step, error) {
	var s Step
	var checks string
	var started, ended, lease int64
	var pending int
	var cost *float64
	err := r.Scan(&s.ID, &s.Night, &s.Role, &s.Worker, &s.Level, &s.Task, &s.Job, &s.Owner, &s.State,
		&s.Outcome, &s.Reason, &s.Answer, &checks, &s.Tokens, &s.CacheWriteTokens, &s.CacheReadTokens, &cost,
		&started, &ended, &pending, &s.Continues, &lease, &s.ContJob)
	if cost != nil {
		s.Cost = models.USD(*cost)
	}
	if checks != "" {
		s.Checks = strings.Split(checks, "\n")
	}
	s.StartedAt, s.EndedAt, s.LeaseUntil, s.Pending = fromMS(started), fromMS(ended), fromMS(lease), pending != 0
	return s, err
}

func querySteps(ctx context.Context, q querier, where string, args ...any) ([]Step, error) {
	r, err := q.query(ctx, "SELECT "+stepCols+" FROM ns_steps WHERE "+where+" ORDER BY id", args...)
	return collect(r, err, scanStep)
}

// Steps returns the night's steps in the order they started.
func (l *Ledger) Steps(ctx context.Context, night int64) ([]Step, error) {
	return querySteps(ctx, l.b.pool(), "night_id = ?", night)
}

// Step returns one step, or ErrNotFound.
func (l *Ledger) Step(ctx context.Context, id int64) (Step, error) {
	return stepByID(ctx, l.b.pool(), id)
}

func stepByID(ctx context.Context, q querier, id int64) (Step, error) {
	ss, err := querySteps(ctx, q, "id = ?", id)
	if err != nil {
		return Step{}, err
	}
	if len(ss) == 0 {
		return Step{}, fmt.Errorf("step %d: %w", id, ErrNotFound)
	}
	return ss[0], nil
}

// TaskSteps returns every step taken on a task, across nights.
func (l *Ledger) TaskSteps(ctx context.Context, task int64) ([]Step, error) {
	return querySteps(ctx, l.b.pool(), "task_id = ?", task)
}

// Running returns the night's steps still marked running: being worked,
// or left by a process that died.
func (l *Ledger) Running(ctx context.Context, night int64) ([]Step, error) {
	return querySteps(ctx, l.b.pool(), "night_id = ? AND state = ?", night, Running)
}

// Pending returns the interrupted steps waiting to be continued, of every
// night and owner.
func (l *Ledger) Pending(ctx context.Context) ([]Step, error) {
	return querySteps(ctx, l.b.pool(), "state = ? AND pending = 1", Interrupted)
}

// JobState returns the state of a River job ("completed", "cancelled",
// "running", ...), or "" when River has cleaned it away: for tests and
// the report's consistency check. A job marked for cancellation while its
// process was dead reads "running (cancel marked)" until River's rescuer
// settles it.
func (l *Ledger) JobState(ctx context.Context, job int64) (string, error) {
	var s, meta string
	err := l.b.pool().queryRow(ctx, "SELECT state, CAST(metadata AS TEXT) FROM river_job WHERE id = ?", job).Scan(&s, &meta)
	if isNoRows(err) {
		return "", nil
	}
	if s == "running" && strings.Contains(meta, "cancel_attempted_at") {
		s += " (cancel marked)"
	}
	return s, err
}
