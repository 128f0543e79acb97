package night

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/ledger"
)

// tryStep takes one step of role if the role can do something useful now.
// It reports whether a step was taken.
func (s *Scheduler) tryStep(ctx context.Context, role ledger.Role, v *view) (bool, error) {
	if !s.ceilingLeft(role) {
		return false, nil
	}
	switch role {
	case ledger.Proposer:
		model, level, ok := s.available(role, 0)
		if !ok {
			return false, nil
		}
		if v.wip >= s.p.WIP {
			if _, _, builder := s.available(ledger.Builder, 0); !builder {
				s.note(ctx, "waiting", "the proposer waits at the WIP cap on the builder, which is out")
			}
			return false, nil
		}
		return s.step(ctx, ledger.Claim{Role: role, Worker: model, Level: level}, s.propose)
	case ledger.Judge:
		model, level, ok := s.available(role, 0)
		if !ok || len(v.unscored) == 0 {
			return false, nil
		}
		return s.step(ctx, ledger.Claim{Role: role, Worker: model, Level: level}, s.judge(v.unscored))
	default:
		if len(v.takeable) == 0 && len(v.unscored) > 0 {
			if _, _, judge := s.available(ledger.Judge, 0); !judge {
				s.note(ctx, "waiting", "the builder waits on the judge, which is out: unscored tasks cannot be taken")
			}
		}
		for _, t := range v.takeable {
			model, level, ok := s.available(ledger.Builder, t.Level)
			if !ok {
				s.note(ctx, "waiting", fmt.Sprintf("task %d waits for a builder model: every one from level %d on is out", t.ID, t.Level))
				continue
			}
			took, err := s.step(ctx, ledger.Claim{Role: role, Worker: model, Level: level, Task: t.ID}, s.build(t))
			if took || err != nil {
				return took, err
			}
		}
		return false, nil
	}
}

// step runs one claimed step; a claim another machine won is not a step.
func (s *Scheduler) step(ctx context.Context, c ledger.Claim, fn ledger.StepFunc) (bool, error) {
	c.Night, c.At, c.Ceiling = s.night.ID, s.clk.Now(), s.p.Roles[c.Role].Ceiling
	var res ledger.Result
	// RunStep returns after the worker recorded the result, so res is
	// written before it is read.
	traced := s.traced(fn)
	keep := func(ctx context.Context, st ledger.Step) ledger.Result { res = traced(ctx, st); return res }
	st, err := s.l.RunStep(ctx, c, keep)
	if errors.Is(err, ledger.ErrTaken) || errors.Is(err, ledger.ErrCeiling) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if st.State != ledger.Interrupted {
		s.st.finished[c.Role]++
	}
	detail, data := stepEvent(c, st, res)
	s.emit("step", detail, data)
	return true, nil
}

// stepEvent says what a step did: the builder's task, the proposer's new
// ideas, the judge's scores.
func stepEvent(c ledger.Claim, st ledger.Step, res ledger.Result) (string, map[string]any) {
	data := map[string]any{"role": c.Role, "worker": c.Worker, "state": st.State, "outcome": st.Outcome, "tokens": st.Tokens}
	head := fmt.Sprintf("%s/%s", c.Role, c.Worker)
	var what string
	switch c.Role {
	case ledger.Builder:
		data["task"] = c.Task
		head += fmt.Sprintf(" task=%d", c.Task)
	case ledger.Proposer:
		var ideas []string
		for _, t := range res.NewTasks {
			ideas = append(ideas, strconv.Quote(t.Title))
		}
		data["ideas"] = len(ideas)
		if st.State == ledger.Finished {
			what = ": added " + cmp.Or(strings.Join(ideas, ", "), "no idea")
		}
	case ledger.Judge:
		ids := slices.Sorted(maps.Keys(res.Scores))
		var scored []string
		for _, id := range ids {
			scored = append(scored, fmt.Sprintf("task %d %s", id, strconv.FormatFloat(res.Scores[id], 'g', -1, 64)))
		}
		data["scored"] = len(ids)
		if st.State == ledger.Finished {
			what = ": scored " + cmp.Or(strings.Join(scored, ", "), "nothing")
		}
	}
	return fmt.Sprintf("%s %s %s%s", head, st.State, st.Outcome, what), data
}

// charge charges a failure of kind k by the rules table, and the worker's
// second failed step of the night on a different task as well. It updates
// tonight's state and returns the failures to record with the step.
func (s *Scheduler) charge(w worker, task int64, k Kind, detail string) []ledger.Failure {
	rule := s.rules.Charge(k, w.role)
	fs := []ledger.Failure{{Scope: rule.Scope, Rule: string(k), Reason: withDetail(rule.Reason, detail)}}
	if k.failedStep() {
		for _, other := range s.st.failedOn[w] {
			if other != task || task == 0 {
				second := s.rules.Charge(SecondFailure, w.role)
				fs = append(fs, ledger.Failure{Scope: second.Scope, Rule: string(SecondFailure),
					Reason: withDetail(second.Reason, fmt.Sprintf("tasks %d and %d", other, task))})
				break
			}
		}
		s.st.failedOn[w] = append(s.st.failedOn[w], task)
	}
	for _, f := range fs {
		f.Task, f.Role, f.Worker = task, w.role, w.model
		s.st.apply(f)
		s.emit("failure", fmt.Sprintf("%s %s: %s", f.Scope, k, f.Reason), map[string]any{"scope": f.Scope, "rule": k, "task": task, "worker": w.String()})
	}
	return fs
}

func withDetail(reason, detail string) string {
	if detail == "" {
		return reason
	}
	return reason + " (" + detail + ")"
}

// spend adds a step's tokens and charges the worker when its own budget
// runs out.
func (s *Scheduler) spend(w worker, task int64, tokens int64) []ledger.Failure {
	s.st.tokens[w] += tokens
	s.st.total += tokens
	if b := s.p.Models[w.model].BudgetTokens; b > 0 && s.st.tokens[w] >= b {
		if _, out := s.st.out[w]; !out {
			return s.charge(w, task, BudgetSpent, fmt.Sprintf("%d of %d tokens", s.st.tokens[w], b))
		}
	}
	return nil
}

// build returns the step function of one builder attempt at t.
func (s *Scheduler) build(t ledger.Task) ledger.StepFunc {
	return func(ctx context.Context, st ledger.Step) ledger.Result {
		w := worker{ledger.Builder, st.Worker}
		dir := s.taskDir(t.ID)
		var a Attempt
		approved, err := s.l.Approvals(ctx, t.ID)
		if err != nil {
			a = Attempt{Outcome: agent.Failed, Reason: err.Error(), Err: err}
		} else {
			a = s.cfg.Builder.Attempt(ctx, Assignment{Night: s.night.ID, Step: st, Task: t, Worker: st.Worker, Level: st.Level,
				Dir: dir, System: s.p.Roles[ledger.Builder].Prompt, MaxSteps: s.p.Roles[ledger.Builder].MaxSteps, Approved: approved,
				Memory: s.memoryFor(st)})
		}
		now := s.clk.Now()
		res := ledger.Result{Outcome: string(a.Outcome), Answer: a.Answer, Reason: a.Reason, Checks: a.Checks,
			Tokens: a.Tokens, At: now, UsedApprovals: a.UsedApprovals}
		k := classify(a)
		switch {
		case a.Outcome == agent.Interrupted:
			res.State = ledger.Interrupted
		case k == "" && a.Park != nil:
			res.State = ledger.StepParked
			res.Park = &ledger.ParkedAction{Action: a.Park.Action, Reason: a.Park.Reason, Deadline: now.Add(time.Duration(s.p.Park.Deadline))}
		case k == "":
			res.State, res.TaskState = ledger.Finished, ledger.Done
		default:
			res.State = ledger.StepFailed
			res.Failures = s.charge(w, t.ID, k, strings.TrimSpace(string(a.Outcome)+": "+a.Reason))
			res.Escalate = s.escalate(ctx, t, st, k)
		}
		res.Failures = append(res.Failures, s.spend(w, t.ID, a.Tokens)...)
		return res
	}
}

// escalate reports whether a failed attempt is the task's second with the
// same model across nights (at most one counted per night; failures by
// hand count too), so the task goes to the role's next model.
func (s *Scheduler) escalate(ctx context.Context, t ledger.Task, st ledger.Step, k Kind) bool {
	if !k.failedStep() {
		return false
	}
	if st.Level+1 >= len(s.p.Roles[ledger.Builder].Models) {
		return false
	}
	fs, err := s.l.TaskFailures(ctx, t.ID)
	if err != nil {
		return false
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
	return len(nights)+byHand >= 2
}

// propose is the proposer's step: one call for new ideas, one per line.
func (s *Scheduler) propose(ctx context.Context, st ledger.Step) ledger.Result {
	tasks, err := s.l.Tasks(ctx)
	var b strings.Builder
	b.WriteString("Ideas already in the backlog:\n")
	for _, t := range tasks {
		fmt.Fprintf(&b, "- %s\n", t.Title)
	}
	b.WriteString("\nPropose new ideas, one per line.")
	res, text, tokens, k, detail := s.ask(ctx, st, b.String(), err)
	if k == "" {
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*0123456789.) "))
			if line != "" {
				res.NewTasks = append(res.NewTasks, ledger.NewTask{Title: line, Source: string(ledger.Proposer)})
			}
		}
	}
	return s.finishCall(st, res, tokens, k, detail)
}

var scoreLine = regexp.MustCompile(`(?m)^\D*?(\d+)\s*[:=-]\s*(\d+(?:\.\d+)?)`)

// judge returns the judge's step: one call scoring the unscored tasks.
func (s *Scheduler) judge(unscored []ledger.Task) ledger.StepFunc {
	return func(ctx context.Context, st ledger.Step) ledger.Result {
		var b strings.Builder
		b.WriteString("Score each idea from 0 (worthless) to 10 (do it tonight). Reply with one line per idea: ID: score\n\n")
		ids := map[int64]bool{}
		for _, t := range unscored {
			fmt.Fprintf(&b, "%d: %s\n", t.ID, t.Title)
			ids[t.ID] = true
		}
		res, text, tokens, k, detail := s.ask(ctx, st, b.String(), nil)
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
		return s.finishCall(st, res, tokens, k, detail)
	}
}

// ask makes a proposer's or judge's call and names its failure, if any.
func (s *Scheduler) ask(ctx context.Context, st ledger.Step, prompt string, prior error) (ledger.Result, string, int64, Kind, string) {
	if prior != nil {
		return ledger.Result{Outcome: "error"}, "", 0, FailedStep, prior.Error()
	}
	if s.cfg.Models[st.Worker] == nil {
		return ledger.Result{Outcome: "error"}, "", 0, ConfigError, "model " + st.Worker + " was not built"
	}
	resp, err := s.callModel(ctx, st.Role, st.Worker, s.p.Roles[st.Role].Prompt, prompt)
	if err != nil {
		return ledger.Result{Outcome: "error", Reason: err.Error()}, "", 0, classifyErr(err), err.Error()
	}
	text := strings.TrimSpace(resp.Message().Text())
	if text == "" {
		return ledger.Result{Outcome: "empty"}, "", resp.Usage.Total(), EmptyAnswer, "the reply was empty"
	}
	return ledger.Result{Outcome: "ok", Answer: text}, text, resp.Usage.Total(), "", ""
}

func (s *Scheduler) finishCall(st ledger.Step, res ledger.Result, tokens int64, k Kind, detail string) ledger.Result {
	w := worker{st.Role, st.Worker}
	res.Tokens, res.At, res.State = tokens, s.clk.Now(), ledger.Finished
	if k != "" {
		res.State = ledger.StepFailed
		res.NewTasks, res.Scores = nil, nil
		res.Failures = s.charge(w, 0, k, detail)
	}
	res.Failures = append(res.Failures, s.spend(w, 0, tokens)...)
	return res
}
