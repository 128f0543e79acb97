package night

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/redact"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/tracing"
)

// Config is one night's set-up. Zero fields take the documented defaults.
type Config struct {
	// Pipeline is the pipeline file. Required.
	Pipeline *Pipeline
	// Ledger records the night and holds its shared state. Required.
	Ledger *ledger.Ledger
	// Models are the pipeline's models, built, by name. The proposer and
	// the judge call theirs through the run lifecycle's call path
	// (lifecycle.Calls); the default builder runs whole runs on the
	// builder's.
	Models map[string]llm.Model
	// Retry is the retry policy of every model call of the night, every
	// role's; the zero Policy is the defaults (3 retries, 1s backoff, the
	// retry budget). Only retries exhausted on wrong timing reach the
	// rules table, as api-down.
	Retry retry.Policy
	// Limiters paces each model's calls, by pipeline name: models on one
	// credential should share one (see Limiters). A model without one
	// gets its own, on the night's clock.
	Limiters map[string]*retry.Limiter
	// Breakers are each model's endpoint's circuit breaker, by pipeline
	// name: models on one endpoint and credential should share one (see
	// Breakers). A model without one gets its own, on the night's clock,
	// with its first role's breaker: configuration.
	Breakers map[string]*breaker.Breaker
	// Builder runs builder steps; default an AgentBuilder over Models.
	Builder Builder
	// Clock is the night's time; default clock.Real{}. Any other clock is
	// simulated: its waits (for the window to open, for a person's answer)
	// are taken at once, so a clock.Fake runs a whole night in
	// milliseconds.
	Clock clock.Clock
	// Events receives one event per step, failure and end; default discard.
	Events event.Sink
	// Restore restores an interrupted task's workspace when its attempt
	// is retried from its start instead of continued
	// (roles.builder.rollback_on_interrupt); default the journal's
	// recovery, as RecoverWorkspace does, in StateBase.
	Restore func(dir string) error
	// StateBase is the state directory (statedir.Base) where each task
	// workspace's journal lives, outside the workspace; default
	// statedir.Base("") ($NIGHTSHIFT_STATE_DIR, else XDG, else
	// ~/.local/state/nightshift).
	StateBase string
	// Idle is how long the night waits, when only a person's answer to a
	// parked task could give it work, before it looks again; default 10m.
	Idle time.Duration
	// Name names the night; default the window's start date (2006-01-02),
	// so that a restarted process or a second machine joins it.
	Name string
	// Exit fills the exit field of the builder's runs' outcome events and
	// records; default none (see lifecycle.Config.Exit).
	Exit func(agent.Outcome) int
	// Redact keeps credentials out of what the default builder's runs
	// hand on (lifecycle.Config.Redact); default none.
	Redact *redact.Redactor
	// Warn hears, once per builder run, that its commands have no
	// sandbox; default none (the runs' start events say so).
	Warn func(line string)
	// Trace records the night, its steps and the builder's runs as
	// OpenTelemetry spans (package tracing); default none.
	Trace *tracing.Tracer
}

// Summary is how a night ended.
type Summary struct {
	Night ledger.Night
	// Finished counts the steps each role finished (every end but
	// interrupted), whichever process took them.
	Finished map[ledger.Role]int
	// Interrupted counts the night's interrupted steps.
	Interrupted int
}

// scheduler runs one night: it decides the night's steps (it is the
// ledger's Handler) on the night's shared state, which it reads in the
// ledger's transactions and never keeps.
type scheduler struct {
	cfg   Config
	p     *Pipeline
	l     *ledger.Ledger
	clk   clock.Clock
	rules Rules
	// simulated is true on any clock but the wall clock: waits are taken
	// at once on it, not by River's snooze.
	simulated bool
	// defaultBuilder is true when the builder's steps are runs on the
	// builder's models (Config.Builder unset).
	defaultBuilder bool
	name           string
	trace          *tracing.Night
}

var _ ledger.Handler = (*scheduler)(nil)

// Run runs the night of cfg's pipeline in this process until it ends: the
// window closed, the ceilings reached, cut short (every worker of a role
// out, a night-scope failure), out of work (nothing takeable), or a
// system stop. Other processes may share the night, through the ledger.
// A night a system stop ended is resumed when Run is called again in its
// window.
//
// When ctx ends (SIGINT, SIGTERM), Run stops taking steps and cancels the
// ones running here (River's StopAndCancel): each is recorded interrupted,
// a builder attempt with its changes kept for the next Run to continue
// (unless roles.builder.rollback_on_interrupt), and Run returns the
// summary so far with ctx's error.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	s, err := newScheduler(cfg)
	if err != nil {
		return nil, err
	}
	return s.run(ctx)
}

func newScheduler(cfg Config) (*scheduler, error) {
	if cfg.Pipeline == nil || cfg.Ledger == nil {
		return nil, errors.New("night: a pipeline and a ledger are required")
	}
	rules, err := RulesWith(cfg.Pipeline.Rules)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPipeline, err)
	}
	// The model table prices every step; a budget in dollars needs the
	// prices of the models it bounds.
	if err := cfg.Pipeline.checkPrices(); err != nil {
		return nil, err
	}
	cfg.Clock = cmp.Or[clock.Clock](cfg.Clock, clock.Real{})
	_, real := cfg.Clock.(clock.Real)
	if cfg.Events == nil {
		cfg.Events = event.Discard
	}
	if cfg.Restore == nil {
		base := cfg.StateBase
		cfg.Restore = func(dir string) error { return recoverWorkspace(base, dir) }
	}
	cfg.Idle = cmp.Or(cfg.Idle, 10*time.Minute)
	lims := make(map[string]*retry.Limiter, len(cfg.Pipeline.Models))
	for name := range cfg.Pipeline.Models {
		lims[name] = cfg.Limiters[name]
		if lims[name] == nil {
			lims[name] = retry.NewLimiter(retry.LimiterConfig{Clock: cfg.Clock})
		}
	}
	cfg.Limiters = lims
	brs := make(map[string]*breaker.Breaker, len(cfg.Pipeline.Models))
	for name := range cfg.Pipeline.Models {
		brs[name] = cfg.Breakers[name]
		if brs[name] == nil {
			bc := cfg.Pipeline.breakerConfig(name)
			bc.Clock = cfg.Clock
			brs[name] = breaker.New(bc, name)
		}
	}
	cfg.Breakers = brs
	defaultBuilder := cfg.Builder == nil
	if defaultBuilder {
		// The builder's gate rules name tools it has: checked here, before
		// the night starts, against the default builder's tools, memory's,
		// delegate_task, and its MCP servers' (by their SERVER__ prefix:
		// each run checks the rest once its servers listed their tools).
		if err := cfg.Pipeline.ValidatePolicy(cfg.Pipeline.BuilderToolNames()); err != nil {
			return nil, err
		}
		servers, err := cfg.Pipeline.MCPServers()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadPipeline, err)
		}
		// The builder role's spec is each attempt's: its gate rules, its
		// sandbox, its limits, its sub-agents (AgentBuilder.Pipeline).
		cfg.Builder = &AgentBuilder{Models: cfg.Models, Retry: cfg.Retry,
			Limiters: cfg.Limiters, Breakers: cfg.Breakers, Clock: cfg.Clock, Events: cfg.Events, Exit: cfg.Exit, StateBase: cfg.StateBase,
			Warn: cfg.Warn, Redact: cfg.Redact, MCP: servers, Trace: cfg.Trace, Pipeline: cfg.Pipeline}
	}
	return &scheduler{cfg: cfg, p: cfg.Pipeline, l: cfg.Ledger, clk: cfg.Clock, rules: rules, simulated: !real,
		defaultBuilder: defaultBuilder}, nil
}

func (s *scheduler) emit(typ, detail string, data map[string]any) {
	s.cfg.Events.Emit(event.Event{TS: s.clk.Now(), Run: s.name, Type: typ, Detail: detail, Data: data})
}

func (s *scheduler) run(ctx context.Context) (*Summary, error) {
	start, end := s.p.Window.Bounds(s.clk.Now())
	if now := s.clk.Now(); now.Before(start) {
		s.emit("night", "waiting for the window to open at "+start.Format(time.RFC3339), nil)
		if err := s.clk.Sleep(ctx, start.Sub(now)); err != nil {
			return nil, err
		}
	}
	s.name = cmp.Or(s.cfg.Name, start.Format("2006-01-02"))
	n, err := s.l.StartNight(ctx, s.name, start, end, s.clk.Now())
	if err != nil {
		return nil, err
	}
	if n.End == ledger.SystemStopped && s.clk.Now().Before(n.WindowEnd) {
		// A person dealt with what stopped it (or runs it again to see):
		// the rest of the window is not lost.
		why := n.Reason
		if n, err = s.l.Resume(ctx, n.ID, s.clk.Now()); err != nil {
			return nil, err
		}
		s.emit("night", "resumed after a system stop ("+why+")", map[string]any{"resumed": true})
	}
	// This process's part of the night is one trace; the night's end, as
	// it stands when this process leaves it, closes it.
	_, s.trace = s.cfg.Trace.Night(ctx, n.ID, s.name)
	defer func() {
		if end, err := s.l.Night(context.WithoutCancel(ctx), n.ID); err == nil {
			s.trace.End(string(end.End), end.Reason, end.Early())
		}
	}()
	if !n.Ended() {
		if err := s.recordSetup(ctx, n); err != nil {
			return nil, err
		}
		s.emit("night", fmt.Sprintf("night=%s window=%s..%s", s.name, start.Format("15:04"), end.Format("15:04")), nil)
		if err := s.chargeUnbuilt(ctx, n); err != nil {
			return nil, err
		}
		if err := s.work(ctx, n); err != nil {
			sum, serr := s.summary(context.WithoutCancel(ctx), n.ID)
			if serr != nil {
				return nil, errors.Join(err, serr)
			}
			return sum, err
		}
	}
	return s.summary(ctx, n.ID)
}

// work works the night here until it ends, or ctx ends.
func (s *scheduler) work(ctx context.Context, n ledger.Night) error {
	w, err := s.l.Work(ctx, ledger.WorkConfig{Night: n.ID, Handler: s, Clock: s.clk, Recover: s.recoverStep,
		Settled: func(job int64, state string) {
			s.emit("recover", fmt.Sprintf("job=%d of the step a dead process left is %s (River's rescuer)", job, state), nil)
		}})
	if err != nil {
		return err
	}
	// On the wall clock, the window's end ends the night even while its
	// chains rest, waiting for steps in flight elsewhere.
	var closed <-chan time.Time
	if !s.simulated {
		t := time.NewTimer(time.Until(n.WindowEnd))
		defer t.Stop()
		closed = t.C
	}
	for {
		select {
		case <-w.Ended():
			return w.Stop(context.WithoutCancel(ctx))
		case <-closed:
			closed = nil
			if _, err := s.l.EndNight(ctx, n.ID, ledger.WindowClosed, s.windowClosed(n), s.clk.Now()); err != nil {
				return errors.Join(err, w.Stop(context.WithoutCancel(ctx)))
			}
		case <-ctx.Done():
			// Stop taking steps, cancel the running ones; each is
			// recorded interrupted before Interrupt returns.
			return errors.Join(ctx.Err(), w.Interrupt(context.WithoutCancel(ctx)))
		}
	}
}

func (s *scheduler) windowClosed(n ledger.Night) string {
	return "the window closed at " + n.WindowEnd.In(s.p.Window.loc()).Format("15:04")
}

// summary reads how the night stands from the ledger.
func (s *scheduler) summary(ctx context.Context, night int64) (*Summary, error) {
	n, err := s.l.Night(ctx, night)
	if err != nil {
		return nil, err
	}
	steps, err := s.l.Steps(ctx, night)
	if err != nil {
		return nil, err
	}
	sum := &Summary{Night: n, Finished: map[ledger.Role]int{}}
	for _, st := range steps {
		switch st.State {
		case ledger.Running:
		case ledger.Interrupted:
			sum.Interrupted++
		default:
			sum.Finished[st.Role]++
		}
	}
	return sum, nil
}

// recoverStep decides, for a step this owner left running when its
// process died, whether its changes are kept for its continuation: a
// builder attempt's are, unless roles.builder.rollback_on_interrupt, in
// which case its workspace is restored now and its task retried from the
// start.
func (s *scheduler) recoverStep(_ context.Context, st ledger.Step) (ledger.Recovery, error) {
	keep := st.Role == ledger.Builder && st.Task != 0 && !s.p.Roles[ledger.Builder].RollbackOnInterrupt
	// Read before a restore, which ends the run and its checkpoint.
	spent := s.deadSpend(st)
	if st.Task != 0 && !keep {
		if err := s.cfg.Restore(s.taskDir(st.Task)); err != nil {
			return ledger.Recovery{}, fmt.Errorf("night: restore the workspace of task %d: %w", st.Task, err)
		}
	}
	how := "its changes kept for the attempt to be continued"
	if !keep {
		how = "its workspace restored; the attempt is retried from its start"
	}
	if sp := spent; sp.Tokens != 0 {
		how += fmt.Sprintf("; the attempt had spent %d tokens, cost %s, by its last checkpoint", sp.Tokens, sp.Cost)
	}
	s.emit("recover", fmt.Sprintf("step=%d task=%d left running by a process that died: %s", st.ID, st.Task, how), nil)
	return ledger.Recovery{Keep: keep, Spent: spent}, nil
}

// deadSpend is what a step whose process died had spent by its last
// checkpoint: a builder attempt's run checkpoints after every model call,
// with its usage and cost so far (from the attempt's first start, which
// the ledger counts off). A proposer's or judge's step is one call and
// keeps no checkpoint, and an attempt may die before its first: they
// recorded nothing spent, which is what they are charged, as what any
// step spent after its last record is lost with its process. It was
// not read at all, so that the dead step's tokens were missing from the
// night's and its cost made the night's "unknown" (issue 23).
func (s *scheduler) deadSpend(st ledger.Step) *ledger.Spent {
	none := &ledger.Spent{Cost: models.USD(0)}
	if st.Role != ledger.Builder || st.Task == 0 {
		return none
	}
	cfg := lifecycle.Config{Dir: s.taskDir(st.Task), StateBase: s.cfg.StateBase}
	paused, err := lifecycle.Paused(cfg)
	if err != nil || len(paused) == 0 {
		return none
	}
	ck, err := lifecycle.ReadCheckpoint(cfg, paused[0])
	if err != nil || ck.State == nil {
		return none
	}
	sp := ck.State.Spent
	return &ledger.Spent{Tokens: sp.Usage.Total(), CacheWriteTokens: sp.Usage.CacheWriteTokens, CacheReadTokens: sp.Usage.CacheReadTokens, Cost: sp.Cost}
}

func (s *scheduler) taskDir(task int64) string {
	return filepath.Join(s.p.Path(s.p.WorkDir), fmt.Sprintf("task-%d", task))
}

// callModel makes one proposer or judge call through the run
// lifecycle's call path: the night's retry policy, the model's limiter,
// and a retry event per retry. A 429 or a 529 is waited out there; only
// retries exhausted on wrong timing come back, and the rules charge
// them as api-down. It returns what every call it made spent (an empty
// answer the fallback then took counts too), each priced by the model
// that answered it.
func (s *scheduler) callModel(ctx context.Context, role ledger.Role, model, system, prompt string) (*llm.Response, budget.Spend, error) {
	m := s.cfg.Models[model]
	if m == nil {
		return nil, budget.Spend{Cost: models.USD(0)}, fmt.Errorf("night: model %q was not built", model)
	}
	req := &llm.Request{Model: s.p.Models[model].Model, System: system, Messages: []llm.Message{llm.UserText(prompt)}, NoCache: s.p.NoCache}
	// A meter without limits only counts.
	meter := budget.NewMeter(budget.Limits{}, budget.Spend{})
	p := s.cfg.Retry
	p.Breaker = s.cfg.Breakers[model]
	calls := lifecycle.Calls{Retry: p, Events: s.cfg.Events, Clock: s.clk,
		Fallback: s.p.Fallback(role, model, s.cfg.Models, s.cfg.Limiters), Meter: meter, Price: s.p.Pricer(model)}
	resp, err := calls.Model(m, s.cfg.Limiters[model], s.name).Generate(ctx, req)
	return resp, meter.Spent(), err
}
