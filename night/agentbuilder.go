package night

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/redact"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/statedir"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/tool/mcp"
	"github.com/nightshift-dev/nightshift/tracing"
	"github.com/nightshift-dev/nightshift/verify"
	"github.com/nightshift-dev/nightshift/workspace"
)

// AgentBuilder is the default Builder: each attempt is a whole run of the
// run lifecycle (lifecycle.Run) in the task's own workspace folder: the
// journal with snapshots before commands, the tools, the gate, the retry
// policy and the worker's limiter on every model call, the verifier, the
// step brake, and the rollback of an attempt that did not end done.
type AgentBuilder struct {
	// Models are the builder's models by pipeline name.
	Models map[string]llm.Model
	// ModelNames maps a pipeline model name to the provider's model name;
	// default "" (the provider's default).
	ModelNames map[string]string
	// Tools returns the tools of one attempt; default the file tools and
	// run_command, as `nightshift run` has (the gate decides which run).
	Tools func(root *workspace.Root) []tool.Tool
	// Verifier checks each attempt's end. Default: with a Pipeline, the
	// builder role's verification (its checks, then a judge: the role's
	// judge model, else the attempt's own; none with no_judge), else the
	// not-empty rule alone.
	Verifier *verify.Verifier
	// Audit receives the gate's decisions as well as each task's audit
	// log; default only the log.
	Audit gate.Auditor
	// Retry is the retry policy of every model call of an attempt; the
	// zero Policy is the defaults (3 retries, 1s backoff, the retry
	// budget), so that a 429 is waited out, not charged to the worker.
	Retry retry.Policy
	// Limiters paces each model's calls by pipeline name; a model without
	// one is not paced. Night's scheduler gives every model one.
	Limiters map[string]*retry.Limiter
	// Breakers are each model's endpoint's circuit breaker by pipeline
	// name; a model without one has none. Night's scheduler gives every
	// model one.
	Breakers map[string]*breaker.Breaker
	// Clock and Events are handed to each run.
	Clock  clock.Clock
	Events event.Sink
	// Exit fills the exit field of each run's outcome event and record;
	// default none (see lifecycle.Config.Exit).
	Exit func(agent.Outcome) int
	// Warn and Redact are handed to each run: who hears that there is
	// no sandbox, and the credentials kept out of everything the run
	// hands on (see lifecycle.Config).
	Warn   func(line string)
	Redact *redact.Redactor
	// StateBase is the state directory (statedir.Base) under which each
	// task workspace's journal, audit log and records live, outside the
	// workspace; default statedir.Base("") (see
	// lifecycle.Config.StateBase).
	StateBase string
	// Pipeline, when set, gives each attempt the builder role's fallback
	// model (roles.builder.fallback), the pipeline's no_cache, its
	// model's context window (for compaction) and the prices of its
	// model table (models_file), so that each attempt's
	// cost is known and a budget in dollars can be kept; default none:
	// every cost unknown.
	Pipeline *Pipeline
	// Spec is each attempt's run options when there is no Pipeline: its
	// gate rules (approve, over gate.DefaultSpec: commands wait for a
	// person, so they park), its sandbox and command timeout, its budget
	// and time limit (an attempt that reaches one ends budget or timeout,
	// a failed step of its task, and is rolled back at once: nothing
	// continues it), rollback_on_interrupt, subagents, its limits (see
	// runspec.Spec). With a Pipeline, its builder role's spec is the
	// attempt's (roles.builder.approve, sandbox, budget_usd, timeout,
	// ...), and Spec is not read. Default none.
	Spec *runspec.Spec
	// MCP are the MCP servers whose tools each attempt gets (the
	// pipeline's mcp:); default none. Trace records each attempt's run
	// as a span, a child of its step's. See lifecycle.Config.
	MCP   []mcp.Server
	Trace *tracing.Tracer
}

var _ Builder = (*AgentBuilder)(nil)

// Attempt runs one agent on the task in a.Dir. A run that does not end done
// is rolled back, so a failed attempt leaves the workspace as it found it;
// a journal that a dead attempt left there is rolled back first. An
// interrupted run keeps its changes, its journal pending, unless the
// spec says rollback_on_interrupt; an attempt that continues one (a.Continues) starts
// on the workspace as that one left it (continueAttempt).
func (b *AgentBuilder) Attempt(ctx context.Context, a Assignment) Attempt {
	m := b.Models[a.Worker]
	if m == nil {
		return Attempt{Outcome: agent.Usage, Reason: fmt.Sprintf("model %q was not built", a.Worker), Cost: models.USD(0)}
	}
	// An attempt that fails before its first call spent nothing.
	fail := func(err error) Attempt {
		return Attempt{Outcome: agent.Failed, Reason: err.Error(), Err: err, Cost: models.USD(0)}
	}
	if err := os.MkdirAll(a.Dir, 0o755); err != nil {
		return fail(err)
	}
	// Nobody is at the terminal: a call that needs a person parks the
	// task, unless a person approved exactly this call already.
	keys := make([]string, 0, len(a.Approved))
	for _, p := range a.Approved {
		keys = append(keys, p.Action)
	}
	p := b.Retry
	p.Limiter = b.Limiters[a.Worker]
	p.Breaker = b.Breakers[a.Worker]
	var fb *agent.Fallback
	var price budget.Pricer
	window := 0
	if b.Pipeline != nil {
		fb = b.Pipeline.Fallback(ledger.Builder, a.Worker, b.Models, b.Limiters)
		price = b.Pipeline.Pricer(a.Worker)
		// The model table's window, as run takes it: a long attempt
		// compacts its history instead of failing at the window.
		window = b.Pipeline.ContextWindow(a.Worker)
	}
	spec := b.attemptSpec(a)
	// The spec was checked when it was loaded; the run checks it again.
	policy, _ := gate.ParsePolicy(spec.Approve...)
	used := &gateWatch{approved: a.Approved, policy: policy, next: b.Audit}
	cfg := lifecycle.Config{
		Spec: &spec, Verifier: b.Verifier, Fallback: fb, ModelWindow: window,
		Dir: a.Dir, Model: m, System: a.System, Tools: b.Tools,
		Asker: gate.Parker, Approved: gate.NewApprovals(keys...).Redacting(b.Redact.String), Audit: used,
		Retry: p, RecoverPending: true,
		Events: b.Events, Clock: b.Clock, Exit: b.Exit, StateBase: b.StateBase,
		Warn: b.Warn, Redact: b.Redact,
		MCP: b.MCP, Memory: memoryOf(a), Trace: b.Trace, Price: price,
		// An attempt stopped by its own budget or time limit is a failed
		// step of its task, which nothing resumes: the lifecycle rolls it
		// back as it does a failed one (it decides; the night says what
		// it wants). Should the rollback fail, the next attempt rolls
		// the journal back before it starts: RecoverPending.
		RollbackOnLimit: true,
	}
	if b.Pipeline != nil {
		if err := b.Pipeline.builderRun(&cfg, a.Worker, b.Models, b.Limiters, b.Verifier == nil, a.Task.Verify); err != nil {
			return Attempt{Outcome: agent.Usage, Reason: err.Error(), Err: err, Cost: models.USD(0)}
		}
	}
	task := taskText(a.Task.Title, a.Task.Body)
	var res *lifecycle.Result
	var err error
	// before is what the attempt this one continues had spent by its
	// checkpoint: the step that recorded it interrupted counted it.
	before := budget.Spend{Cost: models.USD(0)}
	if a.Continues != nil {
		res, before, err = continueAttempt(ctx, cfg, task)
	} else {
		res, err = lifecycle.Run(ctx, cfg, task)
	}
	if err != nil {
		return fail(err)
	}
	u, cost := spentSince(res.Usage, res.Cost, before)
	out := Attempt{Outcome: res.Outcome, Answer: res.Answer, Reason: res.Reason, Checks: res.FailedChecks,
		Tokens: u.Total(), CacheWriteTokens: u.CacheWriteTokens, CacheReadTokens: u.CacheReadTokens, Cost: cost,
		Calls: res.Steps, Err: res.Err, UsedApprovals: used.used, Suspended: res.Suspended}
	if len(used.refused) > 0 && res.Outcome != agent.Done {
		// Seed 003's builder was refused a tool, then said nothing: the
		// ledger says both, so the morning reader sees the cause.
		out.Reason = strings.Join(used.refused, "; ") + "; then " + res.Reason
	}
	if res.Parked != nil {
		out.Park = &ParkRequest{Action: gate.Key(res.Parked.Tool, res.Parked.Input),
			Reason: fmt.Sprintf("the gate asks a person before a %s-class tool runs", res.Parked.Class)}
	}
	if res.JournalErr != nil && res.Outcome == agent.Done {
		f := fail(fmt.Errorf("keep the attempt's changes: %w", res.JournalErr))
		f.Tokens, f.CacheWriteTokens, f.CacheReadTokens, f.Cost, f.Calls = out.Tokens, out.CacheWriteTokens, out.CacheReadTokens, out.Cost, out.Calls
		return f
	}
	return out
}

// attemptSpec is the run options of an attempt at a: the builder role's
// spec with a Pipeline (and the pipeline's no_cache), else b.Spec; the
// assignment's step brake where the spec sets none, memory when the
// assignment has a store, and the provider's
// model name of a.Worker, as the pipeline gives it or else its default
// (the built model would use it anyway, and the events name it).
func (b *AgentBuilder) attemptSpec(a Assignment) runspec.Spec {
	var s runspec.Spec
	name := b.ModelNames[a.Worker]
	switch {
	case b.Pipeline != nil:
		if r := b.Pipeline.Roles[ledger.Builder]; r != nil {
			s = r.Spec.Clone()
		}
		s.NoCache = s.NoCache || b.Pipeline.NoCache
		if name == "" {
			name = b.Pipeline.ModelName(a.Worker)
		}
	case b.Spec != nil:
		s = b.Spec.Clone()
	}
	if s.MaxSteps == 0 {
		s.MaxSteps = a.MaxSteps
	}
	s.ModelName = name
	// The role's memory switch decided whether the step has a store
	// (the task's notes in the ledger): the attempt remembers in it, or
	// not at all.
	s.Memory = a.Memory != nil
	return s
}

// spentSince is what a run spent after before: a resumed run's usage and
// cost count from its first start.
func spentSince(u llm.Usage, c models.Cost, before budget.Spend) (llm.Usage, models.Cost) {
	b := before.Usage
	u = llm.Usage{InputTokens: u.InputTokens - b.InputTokens, OutputTokens: u.OutputTokens - b.OutputTokens,
		CacheWriteTokens: u.CacheWriteTokens - b.CacheWriteTokens, CacheReadTokens: u.CacheReadTokens - b.CacheReadTokens}
	now, okNow := c.USD()
	was, okWas := before.Cost.USD()
	if !okNow || !okWas {
		return u, models.Unknown
	}
	return u, models.USD(now - was)
}

// continueAttempt continues an interrupted attempt: the run the lifecycle
// paused in the task's workspace (the newest), resumed from its checkpoint
// (lifecycle.Resume): its conversation, steps and spend so far, on the
// workspace as it left it, its journal the same. A workspace with no
// paused run (the process died before the attempt's first checkpoint) is
// rolled back and the attempt starts over. It returns what the run had
// spent by its checkpoint as well, which the resumed run's usage and cost
// include.
func continueAttempt(ctx context.Context, cfg lifecycle.Config, task string) (*lifecycle.Result, budget.Spend, error) {
	none := budget.Spend{Cost: models.USD(0)}
	paused, err := lifecycle.Paused(cfg)
	if err != nil || len(paused) == 0 {
		res, err := lifecycle.Run(ctx, cfg, task)
		return res, none, err
	}
	before := none
	if ck, err := lifecycle.ReadCheckpoint(cfg, paused[0]); err == nil {
		if ck.State != nil {
			before = ck.State.Spent
		}
		// The spec it started with (its checkpoint keeps it): an attempt
		// the next night continues keeps the limits it started with.
		recordedSpec(&cfg, ck)
	}
	res, err := lifecycle.Resume(ctx, cfg, paused[0])
	return res, before, err
}

// memoryOf is an assignment's memory for its run.
func memoryOf(a Assignment) *lifecycle.Memory {
	if a.Memory == nil {
		return nil
	}
	return &lifecycle.Memory{Store: a.Memory}
}

func taskText(title, body string) string {
	if body == "" {
		return title
	}
	return title + "\n\n" + body
}

// gateWatch watches the gate's audit: calls allowed by an earlier
// approval, so the ledger can mark those approvals used, and calls the
// gate refused, so a failed attempt's reason names them.
type gateWatch struct {
	approved []ledger.ParkedAction
	policy   gate.Policy
	next     gate.Auditor
	mu       sync.Mutex
	used     []int64
	refused  []string
}

func (u *gateWatch) Record(e gate.Entry) error {
	u.mu.Lock()
	switch {
	case e.By == gate.ByApproval:
		for _, p := range u.approved {
			if strings.HasPrefix(p.Action, e.Tool+" ") && !slices.Contains(u.used, p.ID) {
				u.used = append(u.used, p.ID)
			}
		}
	case e.Decision == string(gate.Deny):
		u.refused = append(u.refused, fmt.Sprintf("%s was refused by %s (rule %s)", e.Tool, e.By, u.policy.Rule(e.Tool, e.Class)))
	}
	u.mu.Unlock()
	if u.next != nil {
		return u.next.Record(e)
	}
	return nil
}

// RecoverWorkspace restores a task's workspace after a crash, as
// `nightshift recover` does: every journal a dead run left in the default
// state directory is rolled back (one in the workspace's .nightshift/ is
// never applied by itself: journal.Legacy). A folder that does not
// exist has nothing to restore.
func RecoverWorkspace(dir string) error { return recoverWorkspace("", dir) }

// recoverWorkspace is RecoverWorkspace with the state directory base (""
// for the default).
func recoverWorkspace(base, dir string) error {
	state := ""
	if base != "" {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return nil
		}
		var err error
		if state, err = statedir.WorkspaceDir(base, dir); err != nil {
			return err
		}
	}
	_, err := lifecycle.Recover(dir, state)
	return err
}
