package lifecycle

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
)

// DelegateName is the subagent tool's name.
const DelegateName = "delegate_task"

// DefaultSubagentSteps is a subagent's step brake unless
// the spec's SubagentSteps says otherwise.
const DefaultSubagentSteps = 10

// subagentTimeout bounds a whole delegated task: its steps' calls, each
// with its own retries. A Set that honours a tool's own timeout gives it
// this long (tool.Timeouter).
const subagentTimeout = 20 * time.Minute

// subagentSystem is the child's system prompt.
const subagentSystem = `You are a sub-agent. Another agent handed you the brief below and is waiting for your answer; it sees only your final reply, not your work. Your tools can only read: you cannot change anything, so do not try. Do what the brief asks, check what you report with the tools, and reply with a short, complete answer: the facts found, with the paths or names they came from, and what you could not find.`

// delegator is delegate_task: it runs a child loop with the run's
// read-class tools. What it needs of the run that is made after the tool
// set (the gate, the events, the trace) is bound once the run has it.
type delegator struct {
	cfg  Config
	read []tool.Tool

	once sync.Once
	set  *tool.Set
	err  error

	gate     *gate.Gate
	events   event.Sink
	observer agent.Observer
	n        atomic.Int32
}

var (
	_ tool.Tool   = (*delegator)(nil)
	_ tool.Opaque = (*delegator)(nil)
)

type delegateIn struct {
	Brief string `json:"brief"`
}

var delegateSchema = json.RawMessage(`{"type":"object","properties":{"brief":{"type":"string","description":"the sub-task, with everything the sub-agent needs: it cannot see this conversation"}},"required":["brief"],"additionalProperties":false}`)

func (d *delegator) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name: DelegateName,
		Description: "Hand a read-only sub-task (find, read, compare, check) to a sub-agent with read-only tools and get its answer back. " +
			"Use it to look into something without filling this conversation with what you read. It cannot change anything and cannot delegate further.",
		InputSchema: delegateSchema,
	}
}

// Class is read: the child reads and answers, and changes nothing.
func (d *delegator) Class() tool.Class { return tool.Read }

// Opaque keeps a delegated task from being run again after a timeout:
// it would spend its model calls again.
func (d *delegator) Opaque() {}

// Timeout is how long a delegated task may take.
func (d *delegator) Timeout() time.Duration { return subagentTimeout }

// bind gives the delegator what the run makes after its tool set.
func (d *delegator) bind(g *gate.Gate, events event.Sink, obs agent.Observer) {
	d.gate, d.events, d.observer = g, events, obs
}

// Run runs the child loop on the brief.
func (d *delegator) Run(ctx context.Context, input json.RawMessage) tool.Result {
	var in delegateIn
	if err := json.Unmarshal(input, &in); err != nil || in.Brief == "" {
		return tool.Error("delegate_task needs a brief: the sub-task, with what the sub-agent needs to know")
	}
	d.once.Do(func() { d.set, d.err = tool.NewSet(d.read...) })
	if d.err != nil {
		return tool.Error("delegate_task: " + d.err.Error())
	}
	n := d.n.Add(1)
	// The run's spec holds for the child too (its output cap, loop
	// limit, call cap, caching and window), with its own step brake; the
	// run's budget and time limit bound it from outside (its meter, its
	// context), and it is verified by the not-empty rule alone.
	spec := d.cfg.spec
	spec.MaxSteps = cmp.Or(spec.SubagentSteps, DefaultSubagentSteps)
	spec.ContextWindow = d.cfg.window()
	spec.BudgetUSD, spec.BudgetTokens, spec.Timeout, spec.MaxVerifyRounds = 0, 0, 0, 0
	cfg := agent.Config{
		Model: d.cfg.Model, Spec: spec, System: subagentSystem,
		Tools: d.set, Gate: d.gate, MaxTokensCap: d.cfg.MaxTokensCap,
		// The child's answer goes back to the worker, which is verified
		// itself: the child needs only the not-empty rule.
		Retry: d.cfg.Retry, Events: d.sink(n), Clock: d.cfg.Clock, RunID: fmt.Sprintf("%s-d%d", d.cfg.RunID, n),
		Observer: d.observer,
		// Its calls are the run's: behind the run's meter they count
		// against its budget, and in its usage and record.
		Meter: agent.MeterOf(ctx), Price: d.cfg.Price,
		// The run's fallback holds for its calls too.
		Fallback: d.cfg.Fallback, CompactAt: d.cfg.CompactAt,
	}
	res := agent.Run(ctx, cfg, in.Brief)
	if res.Outcome == agent.Done {
		return tool.OK(res.Answer)
	}
	msg := fmt.Sprintf("the sub-agent ended %s after %d steps: %s", res.Outcome, res.Steps, res.Reason)
	if res.Answer != "" {
		msg += "\nIts last answer: " + res.Answer
	}
	return tool.Error(msg)
}

// sink sends the child's events to the run's as delegate events: the
// child's event type becomes the field event, its run delegate_run, its
// fields data, so that the run's own start and outcome stay its first
// and last and each type keeps its documented fields.
func (d *delegator) sink(n int32) event.Sink {
	return event.SinkFunc(func(e event.Event) {
		if d.events == nil {
			return
		}
		w := event.NewDelegate(int(n), e)
		w.Run = d.cfg.RunID
		d.events.Emit(w)
	})
}
