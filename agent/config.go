package agent

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/fallback"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/verify"
	"github.com/nightshift-dev/nightshift/workspace"
)

// Defaults for a Config's zero fields.
const (
	DefaultMaxSteps        = 20
	DefaultMaxTokens       = 4096
	DefaultMaxTokensCap    = 32768
	DefaultMaxVerifyRounds = 2
	// DefaultMaxCallsPerReply is the per-reply tool-call cap
	// (the spec's MaxCallsPerReply, Config.Spec; runspec.DefaultMaxCallsPerReply).
	DefaultMaxCallsPerReply = 64
	// MaxCutsInARow is how many max_tokens cuts in a row end the run as
	// truncated (seed 000, section 3.2: "truncated three times in a row —
	// the output itself is out of control").
	MaxCutsInARow = 3
)

// Config is one run's set-up. Zero fields take the documented defaults.
type Config struct {
	// Model answers the worker's calls. Required. It must not retry on its
	// own: every call goes through Retry.
	Model llm.Model
	// Spec is the run's options (package runspec) as the loop reads
	// them: ModelName, sent with each request (empty lets the model
	// choose); the limits group's MaxSteps (the step brake, default 20),
	// MaxTokens (the output cap of a call, default 4096), BudgetUSD and
	// BudgetTokens (the run's spend, every model call counted, the
	// worker's and the judge's: a call that would likely cross them is
	// not made, and the run ends budget, paused: resumable; default
	// none), Timeout (the run's wall-clock limit, timed on Clock from
	// Run's start: when it passes, the call or tool running is stopped
	// and the run ends timeout, paused: resumable; default none),
	// LoopLimit (how many identical tool calls in a row, same tool,
	// input and result, warn the model once; one more ends the run as
	// step-limit, "loop: TOOL repeated N times"; default 3,
	// DefaultLoopLimit; negative turns loop detection off) and
	// MaxCallsPerReply (the most tool calls of one model reply that run:
	// the calls past it are answered with an is_error result saying why,
	// and not run, since a reply of 3,000 calls is a flood, not a plan;
	// default DefaultMaxCallsPerReply, 64; negative: no cap); the verify
	// group's MaxVerifyRounds (how many FAILs are fed back before a FAIL
	// ends the run as unverified; default 2, negative means none); and
	// the long-run group's NoCache (prompt caching off for every call,
	// llm.Request.NoCache; default on) and ContextWindow (the worker
	// model's context window in tokens; default 0: unknown, and the
	// history is never compacted; a Fallback with a smaller window known
	// lowers it, Fallback.ContextWindow). Its other fields are the run
	// lifecycle's, and not read here; the loop checks none of them
	// (lifecycle.Run does: runspec.Spec.Validate).
	Spec runspec.Spec
	// System is the worker's system prompt; default DefaultSystem.
	System string
	// Tools the worker may call; nil means none.
	Tools *tool.Set
	// Root is the workspace. When set, the verifier reads the files the
	// run changed from it.
	Root *workspace.Root
	// MaxTokensCap is the most a cut tool call or structured answer is
	// regenerated with, twice the last cap each time; default 32768.
	MaxTokensCap int
	// Retry is the retry policy for every call, worker and judge alike;
	// the zero Policy is the defaults (3 retries, 1s backoff, the retry
	// budget), retry.NoRetries says none. Its OnRetry is chained: the loop
	// emits a retry event as well.
	Retry retry.Policy
	// JudgeLimiter paces the judge's calls when the judge calls with
	// another credential than the worker; default Retry.Limiter.
	JudgeLimiter *retry.Limiter
	// JudgeBreaker is the circuit breaker of the judge's endpoint, used
	// with JudgeLimiter (a judge with a limiter of its own has no
	// breaker without one: never the worker's, whose endpoint may not be
	// the judge's); default Retry.Breaker when JudgeLimiter is nil.
	JudgeBreaker *breaker.Breaker
	// OutputSchema, when set, is the schema the final answer (JSON) must
	// satisfy.
	OutputSchema *jsonschema.Resolved
	// Verifier checks the end of each turn. Nil means the not-empty rule
	// alone. The not-empty rule is always added.
	Verifier *verify.Verifier
	// Gate decides, before each tool call, whether it may run, and audits
	// the decision. Nil allows every call.
	Gate *gate.Gate
	// Snapshots, when set, captures the workspace before a danger-class
	// tool runs and records what it left after, so that a rollback undoes
	// what a command changed too (a *journal.Journal does both).
	Snapshots Snapshotter
	// OnEnd, when set, is called once the outcome is known and before the
	// outcome event, so that what it reports (a rollback, say) comes
	// before the outcome, which stays the run's last event.
	OnEnd func(*Result)
	// Events receives every event; default discard.
	Events event.Sink
	// Clock stamps events; default clock.Real{}.
	Clock clock.Clock
	// RunID names the run in events and records; default a new ID.
	RunID string
	// Observer, when set, sees each model and tool call begin and end,
	// and each event in the context of the call it belongs to: traces
	// (package tracing). Default none.
	Observer Observer
	// Exit, when set, maps the outcome to the exit status of the process
	// that ran it, for the outcome event's exit field. Default none: the
	// field is left out, since a run inside a library has no exit status
	// (cmd/nightshift hands its table here).
	Exit func(Outcome) int

	// Price prices the worker's calls (the model table's row of its
	// model), JudgePrice the judge's; default Price. Nil prices every
	// call unknown, and a dollar budget then cannot be kept.
	Price      budget.Pricer
	JudgePrice budget.Pricer
	// Meter, when set, is another run's meter that this run's calls go
	// behind instead of one of its own: a subagent's (MeterOf), so that
	// its calls count against its parent's Budget and in its parent's
	// usage. This run's own Usage and Cost are then what it spent.
	// Default a meter of the run's own, with Budget.
	Meter *budget.Meter
	// Checkpoint saves the run's progress after every step, so that a
	// paused or dead run can be resumed; default none.
	Checkpoint Checkpointer
	// Resume, when set, continues a run from a saved State instead of
	// starting one: its messages replace the task, and its steps, spend,
	// verify round and loop count go on from where they were.
	Resume *State

	// Fallback, when set, is a second model for every model call of the
	// run, the worker's, the judge's and the compaction's (package
	// fallback): a call whose retries ran out on a timing failure, or
	// that was answered empty twice in a row, is made again on it.
	// Default none.
	Fallback *Fallback

	// CompactAt is the share of the context window that a call's estimated
	// prompt may reach: before a call that would pass it, older turns
	// are replaced by a summary (compact.go). Default DefaultCompactAt
	// (0.8).
	CompactAt float64
	// Results keeps the tool results too big for the history, for the
	// read_result tool (the lifecycle keeps them in the run's state
	// folder); default none: every result stays whole in the history.
	Results ResultStore
	// ResultCap is the size in bytes above which a tool result is kept
	// in Results and cut in the history to its head and tail; default
	// DefaultResultCap (32 KiB), or a tenth of a small context window.
	ResultCap int
	// Start holds more fields for the run's start event, each also shown
	// as key=value on its human line: where the judge's calls go
	// ("judge", "judge_endpoint") and how commands are confined
	// ("sandbox"), so that a person sees both before anything runs.
	// Keys must not be the event's own (ts, run, step, type, task,
	// model, max_steps). Nil adds none.
	Start []StartField

	// l is Spec as the loop reads it (withDefaults).
	l limits
}

// StartField is one extra field of the start event.
type StartField = event.Field

// Fallback is the second model of a run (Config.Fallback).
type Fallback struct {
	// Model answers the calls the primary cannot. Required. It must not
	// retry on its own: its calls go through the run's retry policy.
	Model llm.Model
	// ModelName is sent with its requests and names it in events.
	ModelName string
	// Price prices its calls; nil prices them unknown.
	Price budget.Pricer
	// Limiter paces its calls when they go out under another credential
	// than the worker's; default the retry policy's.
	Limiter *retry.Limiter
	// Breaker is the circuit breaker of its endpoint; default none (never
	// the worker's: the fallback answers when the worker's endpoint is
	// down).
	Breaker *breaker.Breaker
	// OnQuota falls back on a quota or spend-limit failure too
	// (`--fallback-on quota`); default false: those end the run as they
	// would without a fallback.
	OnQuota bool
	// Cooldown is how long the primary rests after a failure that named
	// no Retry-After; default fallback.DefaultCooldown (60 s).
	Cooldown time.Duration
	// ContextWindow is the fallback model's context window in tokens
	// (the model table's); default 0: unknown. A run with a fallback
	// compacts at the smaller of the windows it knows, its worker's and
	// this one: a call the fallback takes resends the same history, and
	// a history that outgrew the fallback's window would be refused as a
	// bad request just when the fallback is needed.
	ContextWindow int
	// Rest is the primary's rest, when it outlives the run: shared by
	// the runs and calls that put the same primary first (a night's
	// steps), so that a primary that failed for one is not called by
	// the next before its rest is over. Default: the run's own.
	Rest *fallback.Rest
}

// Snapshotter captures the workspace around a danger-class tool call.
type Snapshotter interface {
	Snapshot(ctx context.Context) error
	AfterSnapshot() error
}

// errNoModel is returned for a Config without a model.
var errNoModel = errors.New("agent: no model configured")

// limits are a Config's Spec as the loop reads it, every default
// filled and every "none" made 0.
type limits struct {
	modelName                         string
	maxSteps, maxTokens, maxTokensCap int
	maxVerifyRounds                   int
	loopLimit, maxCallsPerReply       int
	window                            int
	timeout                           time.Duration
	budget                            budget.Limits
	noCache                           bool
}

func (c Config) withDefaults() Config {
	s := &c.Spec
	l := limits{modelName: s.ModelName, window: s.ContextWindow, timeout: s.Timeout.D(), noCache: s.NoCache,
		budget: budget.Limits{USD: s.BudgetUSD, Tokens: s.BudgetTokens}}
	if f := c.Fallback; f != nil && f.ContextWindow > 0 && (l.window <= 0 || f.ContextWindow < l.window) {
		l.window = f.ContextWindow
	}
	c.System = cmp.Or(c.System, DefaultSystem)
	l.maxSteps = cmp.Or(s.MaxSteps, DefaultMaxSteps)
	l.maxTokens = cmp.Or(s.MaxTokens, DefaultMaxTokens)
	l.maxTokensCap = max(cmp.Or(c.MaxTokensCap, DefaultMaxTokensCap), l.maxTokens)
	l.maxVerifyRounds = orNone(s.MaxVerifyRounds, DefaultMaxVerifyRounds)
	loop := 0
	if s.LoopLimit != nil {
		loop = *s.LoopLimit
	}
	l.loopLimit = orNone(loop, DefaultLoopLimit)
	l.maxCallsPerReply = orNone(s.MaxCallsPerReply, DefaultMaxCallsPerReply)
	c.l = l
	if c.Events == nil {
		c.Events = event.Discard
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Retry.Clock == nil {
		c.Retry.Clock = c.Clock
	}
	if c.RunID == "" {
		c.RunID = NewRunID(c.Clock.Now())
	}
	if c.JudgePrice == nil {
		c.JudgePrice = c.Price
	}
	if c.CompactAt <= 0 || c.CompactAt > 1 {
		c.CompactAt = DefaultCompactAt
	}
	return c
}

// orNone is n with 0 the default def and a negative n none (0).
func orNone(n, def int) int {
	switch {
	case n == 0:
		return def
	case n < 0:
		return 0
	}
	return n
}

// DefaultSystem is the worker's default system prompt.
const DefaultSystem = `You are an autonomous worker. You work on files in a workspace through the tools you are given; paths are relative to the workspace root. Do the whole task, check your work with the tools, and when it is completely done, reply with a short final answer saying what you did. Do not claim anything you have not checked: an independent verifier will check your result.`
