package night

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/redact"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/tracing"
)

// Config is one night's set-up. Zero fields take the documented defaults.
type Config struct {
	// Pipeline is the pipeline file. Required.
	Pipeline *Pipeline
	// Ledger records the night. Required.
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
	// Builder runs builder steps; default an AgentBuilder over Models.
	Builder Builder
	// Clock is the night's time; default clock.Real{}. A clock.Fake runs
	// a whole night in milliseconds.
	Clock clock.Clock
	// Events receives one event per step, failure and end; default discard.
	Events event.Sink
	// Restore restores an interrupted task's workspace before its attempt
	// is retried; default the journal's recovery, as RecoverWorkspace
	// does, in StateDir.
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
	// Finished counts the steps each role finished.
	Finished map[ledger.Role]int
}

// Scheduler runs one night.
type Scheduler struct {
	cfg   Config
	p     *Pipeline
	l     *ledger.Ledger
	clk   clock.Clock
	rules Rules
	night ledger.Night
	st    *state
	trace *tracing.Night
}

// Run runs the night of cfg's pipeline to its end: the window closed, the
// ceilings reached, or ended early (no worker can do anything useful, or a
// night- or system-scope failure).
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	s, err := newScheduler(cfg)
	if err != nil {
		return nil, err
	}
	return s.run(ctx)
}

func newScheduler(cfg Config) (*Scheduler, error) {
	if cfg.Pipeline == nil || cfg.Ledger == nil {
		return nil, errors.New("night: a pipeline and a ledger are required")
	}
	rules, err := RulesWith(cfg.Pipeline.Rules)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPipeline, err)
	}
	cfg.Clock = cmp.Or[clock.Clock](cfg.Clock, clock.Real{})
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
	if cfg.Builder == nil {
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
		sbc, timeout := cfg.Pipeline.BuilderCommands()
		cfg.Builder = &AgentBuilder{Models: cfg.Models, Policy: cfg.Pipeline.Policy(), Retry: cfg.Retry,
			Limiters: cfg.Limiters, Clock: cfg.Clock, Events: cfg.Events, Exit: cfg.Exit, StateBase: cfg.StateBase,
			Sandbox: sbc, CommandTimeout: timeout, Warn: cfg.Warn, Redact: cfg.Redact,
			MCP: servers, Subagents: cfg.Pipeline.Roles[ledger.Builder].Subagents, Trace: cfg.Trace,
			Pipeline: cfg.Pipeline}
	}
	return &Scheduler{cfg: cfg, p: cfg.Pipeline, l: cfg.Ledger, clk: cfg.Clock, rules: rules, st: newState()}, nil
}

func (s *Scheduler) emit(typ, detail string, data map[string]any) {
	s.cfg.Events.Emit(event.Event{TS: s.clk.Now(), Run: s.night.Name, Type: typ, Detail: detail, Data: data})
}

func (s *Scheduler) run(ctx context.Context) (*Summary, error) {
	start, end := s.p.Window.Bounds(s.clk.Now())
	if now := s.clk.Now(); now.Before(start) {
		s.emit("night", "waiting for the window to open at "+start.Format(time.RFC3339), nil)
		if err := s.clk.Sleep(ctx, start.Sub(now)); err != nil {
			return nil, err
		}
	}
	name := cmp.Or(s.cfg.Name, start.Format("2006-01-02"))
	n, err := s.l.StartNight(ctx, name, start, end, s.clk.Now())
	if err != nil {
		return nil, err
	}
	s.night = n
	_, s.trace = s.cfg.Trace.Night(ctx, n.ID, name)
	defer func() { s.trace.End(string(s.night.End), s.night.Reason, s.night.End.Early()) }()
	if err := s.st.load(ctx, s.l, n.ID); err != nil {
		return nil, err
	}
	if !n.Ended() {
		s.emit("night", fmt.Sprintf("night=%s window=%s..%s", name, start.Format("15:04"), end.Format("15:04")), nil)
		if err := s.recover(ctx); err != nil {
			return nil, err
		}
		if err := s.loop(ctx); err != nil {
			return nil, err
		}
	}
	if s.night, err = s.l.Night(ctx, n.ID); err != nil {
		return nil, err
	}
	return &Summary{Night: s.night, Finished: s.st.finished}, nil
}

// recover restores each step this owner left running when its process
// died (steps of other owners belong to other processes): its
// task's workspace goes back to how it was before the attempt, and the
// attempt is retried from its start (the task goes first in the queue).
func (s *Scheduler) recover(ctx context.Context) error {
	running, err := s.l.Running(ctx, s.night.ID)
	if err != nil {
		return err
	}
	for _, st := range running {
		if st.Owner != s.l.Owner() {
			continue // another live process's step (a shared night)
		}
		if st.Task != 0 {
			if err := s.cfg.Restore(s.taskDir(st.Task)); err != nil {
				return fmt.Errorf("night: restore the workspace of task %d: %w", st.Task, err)
			}
		}
		if err := s.l.Interrupt(ctx, st, "the process died during the step; its workspace was restored and the attempt is retried", s.clk.Now()); err != nil {
			return err
		}
		s.emit("recover", fmt.Sprintf("step=%d task=%d restored and queued first", st.ID, st.Task), nil)
	}
	return nil
}

func (s *Scheduler) taskDir(task int64) string {
	return filepath.Join(s.p.Path(s.p.WorkDir), fmt.Sprintf("task-%d", task))
}

func (s *Scheduler) end(ctx context.Context, kind ledger.EndKind, reason string) error {
	n, err := s.l.EndNight(ctx, s.night.ID, kind, reason, s.clk.Now())
	if err != nil {
		return err
	}
	s.night = n
	s.emit("night-end", fmt.Sprintf("%s: %s", n.End, n.Reason), map[string]any{"end": n.End, "reason": n.Reason})
	return nil
}

func (s *Scheduler) note(ctx context.Context, kind, text string) {
	key := kind + ": " + text
	if s.st.noted[key] {
		return
	}
	s.st.noted[key] = true
	s.emit("note", key, nil)
	s.l.AddNote(ctx, ledger.Note{Night: s.night.ID, At: s.clk.Now(), Kind: kind, Text: text}) //nolint:errcheck // a lost note loses no work
}

// loop takes steps until the night ends.
func (s *Scheduler) loop(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		now := s.clk.Now()
		if !now.Before(s.night.WindowEnd) {
			return s.end(ctx, ledger.WindowClosed, "the window closed at "+s.night.WindowEnd.Format("15:04"))
		}
		if s.st.stop == ledger.SystemScope {
			return s.end(ctx, ledger.SystemStopped, "stopped until a person acts: "+s.st.stopWhy)
		}
		if s.st.stop == ledger.NightScope {
			return s.end(ctx, ledger.EndedEarly, "a failure stopped the night: "+s.st.stopWhy)
		}
		if _, err := s.l.Expire(ctx, s.night.ID, now, s.p.Park.PastDeadline == "requeue"); err != nil {
			return err
		}
		if err := s.st.catchUp(ctx, s.l, s.night.ID); err != nil {
			return err
		}
		if b := s.p.BudgetTokens; b > 0 && s.st.total >= b {
			return s.end(ctx, ledger.CeilingsReached, fmt.Sprintf("the night's token budget of %d is spent", b))
		}
		n, err := s.l.Night(ctx, s.night.ID)
		if err != nil {
			return err
		}
		s.night = n
		if n.Ended() { // another machine ended the shared night
			return nil
		}
		if c := s.p.Roles[ledger.Builder].Ceiling; n.Reserved[ledger.Builder] >= c {
			return s.end(ctx, ledger.CeilingsReached, fmt.Sprintf("the builder reached its ceiling of %d steps", c))
		}
		v, err := s.view(ctx)
		if err != nil {
			return err
		}
		did := false
		for _, role := range []ledger.Role{ledger.Proposer, ledger.Judge, ledger.Builder} {
			ok, err := s.tryStep(ctx, role, v)
			if err != nil {
				return err
			}
			if ok {
				did = true
				break // look at the backlog again before the next step
			}
		}
		if did {
			continue
		}
		if wait := s.waitFor(v); wait > 0 {
			if err := s.clk.Sleep(ctx, wait); err != nil {
				return err
			}
			continue
		}
		return s.end(ctx, ledger.EndedEarly, s.whyIdle(v))
	}
}

// ceilingLeft reports whether the role may take another step.
func (s *Scheduler) ceilingLeft(role ledger.Role) bool {
	r := s.p.Roles[role]
	return r != nil && (r.Ceiling == 0 || s.night.Reserved[role] < r.Ceiling)
}

// available returns the role's first worker at or after level that has
// not been sent out, with its index.
func (s *Scheduler) available(role ledger.Role, level int) (string, int, bool) {
	r := s.p.Roles[role]
	if r == nil {
		return "", 0, false
	}
	for i := level; i < len(r.Models); i++ {
		w := worker{role, r.Models[i]}
		if _, out := s.st.out[w]; out {
			continue
		}
		if b := s.p.Models[w.model].BudgetTokens; b > 0 && s.st.tokens[w] >= b {
			continue
		}
		return w.model, i, true
	}
	return "", 0, false
}

// whyIdle says, in words, why no worker can do anything useful.
func (s *Scheduler) whyIdle(v *view) string {
	var parts []string
	for _, role := range []ledger.Role{ledger.Builder, ledger.Judge, ledger.Proposer} {
		r := s.p.Roles[role]
		if r == nil {
			continue
		}
		if _, _, ok := s.available(role, 0); !ok {
			var outs []string
			for _, m := range r.Models {
				outs = append(outs, m+": "+cmp.Or(s.st.out[worker{role, m}], "token budget spent"))
			}
			parts = append(parts, fmt.Sprintf("every %s worker is out (%s)", role, strings.Join(outs, "; ")))
		} else if !s.ceilingLeft(role) {
			parts = append(parts, fmt.Sprintf("the %s reached its ceiling", role))
		}
	}
	parts = append(parts, fmt.Sprintf("nothing takeable: %d queued, %d skipped tonight, %d parked", v.queued, v.skipped, v.parked))
	return "no worker can do anything useful: " + strings.Join(parts, "; ")
}

// waitFor returns how long to wait for a person's answer to a parked task,
// or 0 when no answer could come in the window.
func (s *Scheduler) waitFor(v *view) time.Duration {
	if len(v.waiting) == 0 {
		return 0
	}
	now := s.clk.Now()
	wait := min(s.cfg.Idle, s.night.WindowEnd.Sub(now))
	for _, p := range v.waiting {
		if d := p.Deadline.Sub(now); d > 0 && d < wait {
			wait = d
		}
	}
	return max(wait, time.Millisecond)
}

// callModel makes one proposer or judge call through the run
// lifecycle's call path: the night's retry policy, the model's limiter,
// and a retry event per retry. A 429 or a 529 is waited out there; only
// retries exhausted on wrong timing come back, and the rules charge
// them as api-down.
func (s *Scheduler) callModel(ctx context.Context, role ledger.Role, model, system, prompt string) (*llm.Response, error) {
	m := s.cfg.Models[model]
	if m == nil {
		return nil, fmt.Errorf("night: model %q was not built", model)
	}
	req := &llm.Request{Model: s.p.Models[model].Model, System: system, Messages: []llm.Message{llm.UserText(prompt)}, NoCache: s.p.NoCache}
	calls := lifecycle.Calls{Retry: s.cfg.Retry, Events: s.cfg.Events, Clock: s.clk,
		Fallback: s.p.Fallback(role, model, s.cfg.Models, s.cfg.Limiters)}
	return calls.Model(m, s.cfg.Limiters[model], s.night.Name).Generate(ctx, req)
}
