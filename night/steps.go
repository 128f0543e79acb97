package night

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm/models"
)

// tryStep plans one step of role if the role can do something useful now.
func (s *scheduler) tryStep(ctx context.Context, tx *ledger.Tx, st *tonight, role ledger.Role, v *view) (ledger.Plan, bool, error) {
	if !s.ceilingLeft(st.night, role) {
		return ledger.Plan{}, false, nil
	}
	switch role {
	case ledger.Proposer:
		model, level, ok := s.available(st, role, 0)
		if !ok {
			return ledger.Plan{}, false, nil
		}
		if _, _, builder := s.available(st, ledger.Builder, 0); !builder {
			// No builder could take a new idea tonight: it would pile up.
			s.note(ctx, tx, "waiting", "the proposer waits at the WIP cap on the builder, which is out")
			return ledger.Plan{}, false, nil
		}
		if v.wip >= s.p.WIP {
			return ledger.Plan{}, false, nil
		}
		return s.plan(st, ledger.Claim{Role: role, Worker: model, Level: level}, "", s.propose(s.p.WIP-v.wip)), true, nil
	case ledger.Judge:
		model, level, ok := s.available(st, role, 0)
		if !ok || len(v.unscored) == 0 {
			return ledger.Plan{}, false, nil
		}
		return s.plan(st, ledger.Claim{Role: role, Worker: model, Level: level}, "", s.judge(v.unscored)), true, nil
	}
	if len(v.takeable) == 0 && len(v.unscored) > 0 {
		if _, _, judge := s.available(st, ledger.Judge, 0); !judge {
			s.note(ctx, tx, "waiting", "the builder waits on the judge, which is out: unscored tasks cannot be taken")
		}
	}
	if v.unreachable > 0 {
		s.note(ctx, tx, "waiting", "tasks wait for a builder model: every one from their level on is out tonight")
	}
	if len(v.takeable) == 0 {
		return ledger.Plan{}, false, nil
	}
	t := v.takeable[0]
	model, level, _ := s.available(st, ledger.Builder, t.Level)
	return s.plan(st, ledger.Claim{Role: role, Worker: model, Level: level, Task: t.ID}, t.Title, s.build(t, nil)), true, nil
}

// continuePlan plans the continuation of an interrupted attempt of this
// owner: the same task, on its workspace as the attempt left it, with the
// attempt's model or, if that one is out tonight, the role's next.
func (s *scheduler) continuePlan(ctx context.Context, tx *ledger.Tx, st *tonight, c ledger.Step) (ledger.Plan, error) {
	model, level, ok := s.available(st, ledger.Builder, c.Level)
	if !ok {
		// Every builder model is out tonight: the attempt waits, its
		// changes kept, for the next night.
		s.note(ctx, tx, "waiting", fmt.Sprintf("the interrupted attempt at task %d waits for a builder model that is not out", c.Task))
		return ledger.Plan{Idle: true}, nil
	}
	t, err := tx.Task(ctx, c.Task)
	if err != nil {
		return ledger.Plan{}, err
	}
	return s.plan(st, ledger.Claim{Role: ledger.Builder, Worker: model, Level: level, Task: c.Task, Continues: c.ID}, t.Title, s.build(t, &c)), nil
}

// plan claims c now, by the night's clock, under the role's ceiling; its
// step says what it works on (title: its task's) as it starts.
func (s *scheduler) plan(st *tonight, c ledger.Claim, title string, fn ledger.StepFunc) ledger.Plan {
	c.At, c.Ceiling = s.clk.Now(), s.p.Roles[c.Role].Ceiling
	return ledger.Plan{Claim: &c, Work: s.traced(s.announced(st, c, title, fn))}
}

// note writes a note for the morning reader once per night.
func (s *scheduler) note(ctx context.Context, tx *ledger.Tx, kind, text string) {
	added, err := tx.AddNote(ctx, ledger.Note{At: s.clk.Now(), Kind: kind, Text: text})
	if err == nil && added {
		tx.AfterCommit(func() { s.emit("note", kind+": "+text, nil) })
	}
}

// stepEvent says what a step did: the builder's task, the proposer's new
// ideas, the judge's scores.
func stepEvent(st ledger.Step, res ledger.Result) (string, map[string]any) {
	state := cmp.Or(res.State, ledger.Finished)
	data := map[string]any{"role": st.Role, "worker": st.Worker, "state": state, "outcome": res.Outcome, "tokens": res.Tokens}
	head := fmt.Sprintf("%s/%s", st.Role, st.Worker)
	var what string
	switch st.Role {
	case ledger.Builder:
		data["task"] = st.Task
		head += fmt.Sprintf(" task=%d", st.Task)
		if st.Continues != 0 {
			data["continues"] = st.Continues
			head += fmt.Sprintf(" continues=%d", st.Continues)
		}
	case ledger.Proposer:
		var ideas []string
		for _, t := range res.NewTasks {
			ideas = append(ideas, strconv.Quote(t.Title))
		}
		data["ideas"] = len(ideas)
		if res.DroppedTasks > 0 {
			data["dropped"] = res.DroppedTasks
		}
		if state == ledger.Finished {
			what = ": added " + cmp.Or(strings.Join(ideas, ", "), "no idea")
			if res.DroppedTasks > 0 {
				what += fmt.Sprintf("; dropped %d more at the WIP cap", res.DroppedTasks)
			}
		}
	case ledger.Judge:
		ids := slices.Sorted(maps.Keys(res.Scores))
		var scored []string
		for _, id := range ids {
			scored = append(scored, fmt.Sprintf("task %d %s", id, strconv.FormatFloat(res.Scores[id], 'g', -1, 64)))
		}
		data["scored"] = len(ids)
		if state == ledger.Finished {
			what = ": scored " + cmp.Or(strings.Join(scored, ", "), "nothing")
		}
	}
	return fmt.Sprintf("%s %s %s%s", head, state, res.Outcome, what), data
}

// settled finishes a step's result in the recording transaction: the
// tokens and the cost it spent, what a budget spent or a stop ends, and
// the events said once it is committed.
func (s *scheduler) settled(tx *ledger.Tx, st *tonight, step ledger.Step, w worker, task int64, res ledger.Result) ledger.Result {
	res.Failures = append(res.Failures, s.spend(tx, st, w, task, res.Tokens, res.Cost)...)
	switch {
	case st.stop == ledger.SystemScope:
		res.End = &ledger.End{Kind: ledger.SystemStopped, Reason: "stopped until a person acts: " + st.stopWhy, At: res.At}
	case st.stop == ledger.NightScope:
		res.End = &ledger.End{Kind: ledger.CutShort, Reason: "a failure stopped the night: " + st.stopWhy, At: res.At}
	default:
		// The night's budget, all processes together, is spent: the
		// step that spent it ends the night, in the same transaction.
		if why := s.budgetSpent(st); why != "" {
			res.End = &ledger.End{Kind: ledger.CeilingsReached, Reason: why, At: res.At}
		}
	}
	detail, data := stepEvent(step, res)
	tx.AfterCommit(func() {
		s.emit("step", detail, data)
		if res.End != nil {
			s.emitEnd(res.End.Kind, res.End.Reason)
		}
	})
	return res
}

// charge charges a failure of kind k by the rules table, and the worker's
// second failed step of the night on a different task as well: two task
// IDs, read from tonight's failures in the ledger, so that the rule counts
// the failures of every process sharing the night. A failure without a
// task (the proposer's, the judge's) never counts toward it. It updates
// st and returns the failures to record with the step.
func (s *scheduler) charge(tx *ledger.Tx, st *tonight, w worker, task int64, k Kind, detail string) []ledger.Failure {
	rule := s.rules.Charge(k, w.role)
	fs := []ledger.Failure{{Scope: rule.Scope, Rule: string(k), Reason: withDetail(rule.Reason, detail)}}
	if k.failedStep() && task != 0 {
		if other := st.otherTask(w, task); other != 0 {
			second := s.rules.Charge(SecondFailure, w.role)
			fs = append(fs, ledger.Failure{Scope: second.Scope, Rule: string(SecondFailure),
				Reason: withDetail(second.Reason, fmt.Sprintf("tasks %d and %d", other, task))})
		}
	}
	for i := range fs {
		f := &fs[i]
		f.Task, f.Role, f.Worker = task, w.role, w.model
		st.apply(*f, true)
		ev := map[string]any{"scope": f.Scope, "rule": f.Rule, "task": task, "worker": w.String()}
		detail := fmt.Sprintf("%s %s: %s", f.Scope, f.Rule, f.Reason)
		tx.AfterCommit(func() { s.emit("failure", detail, ev) })
	}
	return fs
}

func withDetail(reason, detail string) string {
	if detail == "" {
		return reason
	}
	return reason + " (" + detail + ")"
}

// budgetSpent says how the night's budget is spent, in tokens or in
// dollars, or "" while it is not. A step whose cost is unknown spends a
// dollar budget: it can no longer be kept (the pipeline's check makes
// sure every model has a price, so this is a price the table lacks for
// one call, such as a long prompt's).
func (s *scheduler) budgetSpent(st *tonight) string {
	switch b := s.p.BudgetUSD; {
	case s.p.BudgetTokens > 0 && st.total >= s.p.BudgetTokens:
		return fmt.Sprintf("the night's token budget of %d is spent", s.p.BudgetTokens)
	case b > 0 && st.unpriced > 0:
		return fmt.Sprintf("the night's budget of $%.2f cannot be kept: the cost of %d step(s) is unknown to the model table (known: $%.4f)", b, st.unpriced, st.usd)
	case b > 0 && st.usd >= b:
		return fmt.Sprintf("the night's budget of $%.2f is spent ($%.4f)", b, st.usd)
	}
	return ""
}

// spend adds a step's tokens and cost to tonight's totals (all processes'
// steps' together) and charges the worker when this step ran its own
// token budget out.
func (s *scheduler) spend(tx *ledger.Tx, st *tonight, w worker, task int64, tokens int64, cost models.Cost) []ledger.Failure {
	before := st.tokens[w]
	st.tokens[w] += tokens
	st.total += tokens
	if usd, ok := cost.USD(); ok {
		st.usd += usd
	} else {
		st.unpriced++
	}
	if b := s.p.Models[w.model].BudgetTokens; b > 0 && before < b && st.tokens[w] >= b {
		return s.charge(tx, st, w, task, BudgetSpent, fmt.Sprintf("%d of %d tokens", st.tokens[w], b))
	}
	return nil
}

// build returns the step function of one builder attempt at t, or of the
// continuation of the interrupted attempt cont.
func (s *scheduler) build(t ledger.Task, cont *ledger.Step) ledger.StepFunc {
	return func(ctx context.Context, step ledger.Step) ledger.SettleFunc {
		w := worker{ledger.Builder, step.Worker}
		var a Attempt
		var approved []ledger.ParkedAction
		var err error
		if t.Front {
			// Only an approved (or interrupted) task goes first; only an
			// approved one has approvals to read.
			approved, err = s.l.Approvals(ctx, t.ID)
		}
		if err != nil {
			a = Attempt{Outcome: agent.Failed, Reason: err.Error(), Err: err}
		} else {
			a = s.cfg.Builder.Attempt(ctx, Assignment{Night: step.Night, Step: step, Task: t, Worker: step.Worker, Level: step.Level,
				Dir: s.taskDir(t.ID), System: s.p.Roles[ledger.Builder].Prompt, MaxSteps: s.p.Roles[ledger.Builder].MaxSteps,
				Approved: approved, Continues: cont, Memory: s.memoryFor(step)})
		}
		now := s.clk.Now()
		return func(ctx context.Context, tx *ledger.Tx) (ledger.Result, error) {
			k := classify(a)
			st, err := s.load(ctx, tx, k != "" && a.Outcome != agent.Interrupted)
			if err != nil {
				return ledger.Result{}, err
			}
			res := ledger.Result{Outcome: string(a.Outcome), Answer: a.Answer, Reason: a.Reason, Checks: a.Checks,
				Tokens: a.Tokens, CacheWriteTokens: a.CacheWriteTokens, CacheReadTokens: a.CacheReadTokens, Cost: a.Cost,
				At: now, UsedApprovals: a.UsedApprovals}
			switch {
			case a.Outcome == agent.Interrupted:
				res.State, res.Pending = ledger.Interrupted, a.Suspended
			case k == WaitingForProvider:
				// The provider is down, not the task: the attempt gives
				// its place under the ceiling back and its task goes back
				// to the queue, as an interrupted one's does (the
				// lifecycle rolled it back); the worker is charged once
				// per outage (provider.go).
				res.State = ledger.Interrupted
				if s.chargeWait(st, w) {
					res.Failures = s.charge(tx, st, w, 0, k, strings.TrimSpace(a.Reason))
				}
			case k == "" && a.Park != nil:
				res.State = ledger.StepParked
				res.Park = &ledger.ParkedAction{Action: a.Park.Action, Reason: a.Park.Reason, Deadline: now.Add(time.Duration(s.p.Park.Deadline))}
			case k == "":
				res.State, res.TaskState = ledger.Finished, ledger.Done
			default:
				res.State = ledger.StepFailed
				res.Failures = s.charge(tx, st, w, t.ID, k, strings.TrimSpace(string(a.Outcome)+": "+a.Reason))
				if res.Escalate, err = s.escalate(ctx, tx, t, step, k); err != nil {
					return ledger.Result{}, err
				}
			}
			return s.settled(tx, st, step, w, t.ID, res), nil
		}
	}
}

// escalate reports whether a failed attempt is the task's second with the
// same model across nights (at most one counted per night; failures by
// hand count too), so the task goes to the role's next model.
func (s *scheduler) escalate(ctx context.Context, tx *ledger.Tx, t ledger.Task, st ledger.Step, k Kind) (bool, error) {
	if !k.failedStep() {
		return false, nil
	}
	if st.Level+1 >= len(s.p.Roles[ledger.Builder].Models) {
		return false, nil
	}
	fs, err := tx.TaskFailures(ctx, t.ID)
	if err != nil {
		return false, err
	}
	nights := map[int64]bool{st.Night: true}
	byHand := 0
	for _, f := range fs {
		if f.Level != t.Level || (!Kind(f.Rule).failedStep() && !f.Manual) {
			continue
		}
		if f.Night == 0 {
			byHand++
			continue
		}
		nights[f.Night] = true
	}
	return len(nights)+byHand >= 2, nil
}

// propose returns the proposer's step: one call for new ideas, one per
// line, of which it keeps the first room, what the WIP cap has room for
// when the step is planned (wip minus the tasks in progress). The rest
// are dropped and counted in the step's event: one reply of 3,000 ideas
// added 3,000 tasks under wip: 3.
func (s *scheduler) propose(room int) ledger.StepFunc {
	return func(ctx context.Context, step ledger.Step) ledger.SettleFunc {
		tasks, err := s.l.Tasks(ctx)
		var b strings.Builder
		b.WriteString("Ideas already in the backlog:\n")
		for _, t := range tasks {
			fmt.Fprintf(&b, "- %s\n", t.Title)
		}
		fmt.Fprintf(&b, "\nPropose new ideas, one per line: at most %d are kept.", room)
		res, text, spent, k, detail := s.ask(ctx, step, b.String(), err)
		if k == "" {
			for _, line := range strings.Split(text, "\n") {
				line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*0123456789.) "))
				switch {
				case line == "":
				case len(res.NewTasks) < room:
					res.NewTasks = append(res.NewTasks, ledger.NewTask{Title: ideaTitle(line), Source: string(ledger.Proposer)})
				default:
					res.DroppedTasks++
				}
			}
		}
		return s.finishCall(step, res, spent, k, detail)
	}
}

// maxIdea is the longest idea a proposer step keeps, in characters: an
// idea is a task's title, shown on a line of task list, the status line
// and the report; one line of a megabyte is a flood of its own.
const maxIdea = 300

// ideaTitle is an idea cut to maxIdea characters, the cut marked.
func ideaTitle(line string) string {
	if r := []rune(line); len(r) > maxIdea {
		return string(r[:maxIdea-1]) + "…"
	}
	return line
}

var scoreLine = lazyregexp.New(`(?m)^\D*?(\d+)\s*[:=-]\s*(\d+(?:\.\d+)?)`)

// judge returns the judge's step: one call scoring the unscored tasks.
func (s *scheduler) judge(unscored []ledger.Task) ledger.StepFunc {
	return func(ctx context.Context, step ledger.Step) ledger.SettleFunc {
		var b strings.Builder
		b.WriteString("Score each idea from 0 (worthless) to 10 (do it tonight). Reply with one line per idea: ID: score\n\n")
		ids := map[int64]bool{}
		for _, t := range unscored {
			fmt.Fprintf(&b, "%d: %s\n", t.ID, t.Title)
			ids[t.ID] = true
		}
		res, text, spent, k, detail := s.ask(ctx, step, b.String(), nil)
		if k == "" {
			res.Scores = map[int64]float64{}
			for _, m := range scoreLine.FindAllStringSubmatch(text, -1) {
				id, _ := strconv.ParseInt(m[1], 10, 64)
				v, _ := strconv.ParseFloat(m[2], 64)
				if ids[id] {
					res.Scores[id] = v
				}
			}
			if len(res.Scores) == 0 {
				k, detail = FailedStep, "the reply scored none of the ideas"
			}
		}
		return s.finishCall(step, res, spent, k, detail)
	}
}

// ask makes a proposer's or judge's call and names its failure, if any,
// with what the call spent.
func (s *scheduler) ask(ctx context.Context, st ledger.Step, prompt string, prior error) (ledger.Result, string, budget.Spend, Kind, string) {
	none := budget.Spend{Cost: models.USD(0)}
	if prior != nil {
		return ledger.Result{Outcome: "error"}, "", none, FailedStep, prior.Error()
	}
	if s.cfg.Models[st.Worker] == nil {
		return ledger.Result{Outcome: "error"}, "", none, ConfigError, "model " + st.Worker + " was not built"
	}
	resp, spent, err := s.callModel(ctx, st.Role, st.Worker, s.p.Roles[st.Role].Prompt, prompt)
	if err != nil {
		if ctx.Err() != nil {
			return ledger.Result{State: ledger.Interrupted, Outcome: "interrupted", Reason: err.Error()}, "", spent, "", ""
		}
		if errors.Is(err, breaker.ErrUnavailable) {
			// Its endpoint's breaker stayed open past the retry budget:
			// the provider is down, not the step (provider.go).
			return ledger.Result{State: ledger.Interrupted, Outcome: string(agent.Unavailable), Reason: err.Error()}, "", spent,
				WaitingForProvider, err.Error()
		}
		return ledger.Result{Outcome: "error", Reason: err.Error()}, "", spent, classifyErr(err), err.Error()
	}
	text := strings.TrimSpace(resp.Message().Text())
	if text == "" {
		return ledger.Result{Outcome: "empty"}, "", spent, EmptyAnswer, "the reply was empty"
	}
	return ledger.Result{Outcome: "ok", Answer: text}, text, spent, "", ""
}

// finishCall settles a proposer's or judge's call in the recording
// transaction.
func (s *scheduler) finishCall(step ledger.Step, res ledger.Result, spent budget.Spend, k Kind, detail string) ledger.SettleFunc {
	at := s.clk.Now()
	tokens := spent.Usage.Total()
	return func(ctx context.Context, tx *ledger.Tx) (ledger.Result, error) {
		st, err := s.load(ctx, tx, k != "")
		if err != nil {
			return ledger.Result{}, err
		}
		w := worker{step.Role, step.Worker}
		res.Tokens, res.At = tokens, at
		res.CacheWriteTokens, res.CacheReadTokens, res.Cost = spent.Usage.CacheWriteTokens, spent.Usage.CacheReadTokens, spent.Cost
		if res.State == "" {
			res.State = ledger.Finished
		}
		switch {
		case k == WaitingForProvider:
			// As a builder's attempt: the step gives its place back,
			// and the worker is charged once per outage.
			res.State = ledger.Interrupted
			res.NewTasks, res.Scores = nil, nil
			if s.chargeWait(st, w) {
				res.Failures = s.charge(tx, st, w, 0, k, detail)
			}
		case k != "":
			res.State = ledger.StepFailed
			res.NewTasks, res.Scores = nil, nil
			res.Failures = s.charge(tx, st, w, 0, k, detail)
		}
		return s.settled(tx, st, step, w, 0, res), nil
	}
}
