package lifecycle

import (
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/fallback"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/memory"
	"github.com/nightshift-dev/nightshift/redact"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/tool/command"
	"github.com/nightshift-dev/nightshift/tool/fs"
	"github.com/nightshift-dev/nightshift/tool/mcp"
	"github.com/nightshift-dev/nightshift/tracing"
	"github.com/nightshift-dev/nightshift/verify"
	"github.com/nightshift-dev/nightshift/workspace"
)

// Config is one run's set-up. Dir and Model are required; every other
// zero field takes the default its comment names.
//
// A run's options live in one place: its run spec (Spec, package
// runspec), which the flags, task files, batch lines, pipeline roles and
// checkpoints all decode into, and which the lifecycle reads as it is:
// the model's name, the limits, the verify rounds, the gate's rules, the
// sandbox, the long-run settings, the sub-agents and the end-of-run
// wishes. The fields beside it are what a spec cannot hold: the live
// model and verifier the caller resolved from it, the clock, the stores,
// the sinks and the callbacks.
type Config struct {
	// Spec is the run's options (runspec.Spec), checked before the run
	// starts (runspec.Spec.Validate: an error matching runspec.ErrInvalid
	// that names the flag and the key). Its zero fields are the defaults;
	// beyond a front end's, the lifecycle reads -1 as "none" for
	// MaxVerifyRounds and MaxCallsPerReply, as it does for LoopLimit. Its
	// ModelName is the name sent with each request (empty lets the model
	// choose); its Approve rules go over the gate's default; its Sandbox,
	// SandboxNet and Env confine the commands; Subagents adds
	// delegate_task and Memory the notes (see Memory). It is recorded in
	// the run's checkpoint (Checkpoint.Spec), and a Resume whose Config
	// has none goes on with the recorded one; a caller that resumes with
	// a higher budget passes the recorded spec with it raised. What needs
	// the environment (the model, the judge, the fallback, the prices, the
	// schema files, the MCP servers) the caller resolves. Default none:
	// every option its default.
	Spec *runspec.Spec

	// Dir is the workspace: the folder the run's tools may touch. It must
	// exist. Required.
	Dir string
	// StateDir is the workspace's state folder, where the run's journal,
	// the gate's audit log (audit.jsonl) and the run record
	// (runs/<run>.json) are kept. It must lie outside Dir, where nothing
	// the run does can reach it. Default: the workspace's own folder in
	// StateBase, StateBase/ws/<key of Dir> (statedir.Workspace).
	StateDir string
	// StateBase is the state directory under which StateDir is made when
	// StateDir is empty (`--state-dir`). Default statedir.Base(""):
	// $NIGHTSHIFT_STATE_DIR, else $XDG_STATE_HOME/nightshift, else
	// ~/.local/state/nightshift.
	StateBase string
	// KeepState is how old the workspace's run records and checkpoints
	// may grow before a run's start prunes them (`--keep-state`); default
	// 30 days, negative keeps them all. Journals are never pruned.
	KeepState time.Duration

	// Model answers the worker's calls. Required. It must not retry on
	// its own: every call goes through Retry.
	Model llm.Model
	// ModelWindow is Model's context window in tokens as the caller knows
	// it (the model table's row), for compaction; the spec's
	// ContextWindow, when set, wins. Default 0: what the model's server
	// says, if it can be asked (window.go), else unknown, and the history
	// is never compacted. Before a call whose estimated prompt would pass
	// CompactAt of the window (default 0.8), the older turns are replaced
	// by a summary the model writes.
	ModelWindow int
	CompactAt   float64
	// System is the worker's system prompt; default agent.DefaultSystem.
	System string

	// Tools returns the run's tools over its workspace; default the file
	// tools and run_command in the run's sandbox (the spec's Sandbox,
	// SandboxNet and Env; see package sandbox), whose commands carry
	// journal.Mark(root.Dir()) in their environment, so that `nightshift
	// recover` can tell that one outlived a killed run. A caller's own
	// tool that starts processes should do both: run them as the spec
	// says, and give them the mark. A sandbox that cannot be had (mode
	// bwrap without a working bubblewrap, Env naming a credential) keeps
	// the run from starting with an error matching sandbox.ErrConfig.
	Tools func(root *workspace.Root) []tool.Tool
	// Environ is the environment the commands' and the stdio MCP servers'
	// variables are taken from (sandbox.Config.Environ); default
	// os.Environ().
	Environ []string
	// Warn is told, once each before the run starts, what the person
	// running it must know about its sandbox: that there is none (mode
	// none, or auto without bubblewrap). Default: the warnings are only
	// in the run's start event (its sandbox field).
	Warn func(line string)

	// Redact keeps credentials out of everything the run hands on: the
	// tool results the model reads, what the judge is sent, the events,
	// the audit log, the run record and the verifier's reasons. Nil
	// redacts nothing (cmd/nightshift gives one of the environment's
	// credentials).
	Redact *redact.Redactor
	// Start adds fields to the run's start event, such as where the judge
	// goes; the sandbox field is added by the run itself.
	Start []agent.StartField

	// Asker asks a person when the gate's policy (the spec's Approve
	// over read=allow,write=allow,danger=ask) says ask; default nobody,
	// so ask means deny. gate.Parker parks the run instead (the night).
	Asker gate.Asker
	// Approved holds calls a person approved beforehand; default none.
	Approved *gate.Approvals
	// Audit receives every gate decision as well as StateDir/audit.jsonl;
	// default only the file.
	Audit gate.Auditor

	// Retry is the retry policy of every model call of the run: the
	// worker's first calls, its continuations and regenerations, and the
	// judge's. The spec's Retries (0: none), Backoff and RetryBudget,
	// when set, replace its own; its other fields are the live policy
	// (the limiter, the breaker, the clock). The zero Policy is the
	// defaults (3 retries, 1s backoff, the retry budget). Retry.Limiter
	// paces the worker's credential; default none. Retry.Clock defaults
	// to Clock.
	Retry retry.Policy
	// JudgeLimiter paces the judge's calls when the judge calls with
	// another credential than the worker; default Retry.Limiter.
	JudgeLimiter *retry.Limiter
	// JudgeBreaker is the circuit breaker of the judge's endpoint (see
	// agent.Config.JudgeBreaker); default none with a JudgeLimiter.
	JudgeBreaker *breaker.Breaker

	// Verifier checks each end of turn: its rules, then its judge.
	// Default the not-empty rule alone, which always runs.
	Verifier *verify.Verifier
	// OutputSchema, when set, is the JSON Schema the final answer must
	// satisfy, resolved by the caller from the spec's file; default none.
	OutputSchema *jsonschema.Resolved
	// MaxTokensCap is the output cap a cut tool call or structured answer
	// is regenerated with at most (agent.Config.MaxTokensCap); default
	// 32768.
	MaxTokensCap int

	// Price prices the worker's calls (from the model table, package
	// llm/models), JudgePrice the judge's; default Price. Nil prices
	// every call unknown: the cost is reported unknown, never zero, and a
	// dollar budget (the spec's BudgetUSD) cannot be kept (the run stops
	// before its first call). A call that would likely cross the spec's
	// budget is not made, and the run ends budget: paused, resumable
	// (Resume) with a higher budget; a resumed run's spend goes on from
	// its checkpoint.
	Price      budget.Pricer
	JudgePrice budget.Pricer
	// Fallback is a second model for every model call of the run, the
	// worker's, the judge's and the compaction's: a call whose retries
	// ran out on a timing failure, or that was answered empty twice in a
	// row, is made again on it, and the primary rests until its last
	// Retry-After (or 60 s) before it is tried again (package fallback;
	// `--fallback-model`). Default none.
	Fallback *agent.Fallback
	// ResultCap is the size in bytes above which a tool result is kept
	// whole in the run's checkpoint folder and cut in the history to its
	// head and tail, with a note naming the read_result tool; default
	// agent.DefaultResultCap (32 KiB), or a tenth of a small context
	// window; negative never cuts.
	ResultCap int

	// RollbackOnLimit rolls a run that its budget or its time limit
	// stopped back like a failed one, instead of pausing it: for a caller
	// that never resumes such a run (the night's builder, whose attempt
	// that reached its own limits is a failed step of its task). Default
	// false: it pauses, resumable with a higher limit. (The spec's Keep
	// commits every outcome; its RollbackOnInterrupt rolls an interrupted
	// run back. Otherwise a run that ends done commits; a paused one
	// keeps its changes and its journal pending for Resume or Recover;
	// any other is rolled back, and its patch kept in the run record.)
	RollbackOnLimit bool
	// Settings are recorded in the run's checkpoint, untouched, for the
	// caller to rebuild this Config from when it resumes the run
	// (ReadCheckpoint): `nightshift run` keeps the process's own settings
	// there. Default none.
	Settings json.RawMessage
	// RecoverPending rolls back, before the run begins, the journals of
	// earlier runs that died in the workspace. Default false: the run
	// refuses to start, with an error matching journal.ErrNeedsRecovery,
	// and a person decides (`nightshift recover`). The night's builder,
	// which owns its tasks' folders, sets it.
	RecoverPending bool

	// Events receives every event of the run; default discard. The run
	// record keeps them as well.
	Events event.Sink
	// Clock stamps events and records and times the retries' waits;
	// default clock.Real{}.
	Clock clock.Clock
	// RunID names the run; default a new agent.NewRunID.
	RunID string
	// Exit maps the outcome to the exit status of the process that ran
	// it, for the outcome event's and the run record's exit field.
	// Default none: a run inside a library has no exit status, and the
	// field is left out. cmd/nightshift hands its table here.
	Exit func(agent.Outcome) int

	// The ecosystem (lifecycle/ecosystem.go): tools from MCP servers, a
	// subagent (the spec's Subagents and SubagentSteps), memory across
	// attempts, traces. Each is off by default.

	// MCP are MCP servers whose tools join the run's (package tool/mcp),
	// as the caller resolved them from the spec's mcp: section and --mcp
	// flags, named SERVER__tool: started in the workspace before the
	// first model call and stopped when the run ends, a stdio one with
	// the commands' environment and the variables its own Env names,
	// never nightshift's keys otherwise. A server that does not start,
	// or a tool name that collides, keeps the run from starting (an error
	// matching mcp.ErrConfig). Default none.
	MCP []mcp.Server
	// Memory is where the notes of remember {note} and recall {query}
	// are kept when the spec's Memory turns them on, or when it is given:
	// the worker is told (in its system prompt, which the judge never
	// sees) what earlier attempts noted and why they failed, and this
	// run's failure reason is added when it does not end done. Nil and
	// the spec's Memory off: no memory.
	Memory *Memory
	// Trace records the run, its model calls and its tool calls as
	// OpenTelemetry spans (package tracing). Nil: no trace.
	Trace *tracing.Tracer

	// spec is Spec as the run reads it (withDefaults): a copy, the zero
	// spec for none.
	spec runspec.Spec
}

// Memory is where a run's notes are kept (Config.Memory).
type Memory struct {
	// Store keeps the notes; default the workspace's own, in its state
	// folder (statedir.MemoryName), outside the workspace. The night
	// gives the task's, in its ledger.
	Store memory.Store
}

// Errors of a Config that cannot run.
var (
	errNoDir   = errors.New("lifecycle: no workspace (Config.Dir)")
	errNoModel = errors.New("lifecycle: no model (Config.Model)")
)

// withDefaults reads the spec (readSpec) and fills the zero fields the
// lifecycle itself reads; the loop's limits keep their zero values,
// which the loop defaults.
func (c Config) withDefaults() (Config, error) {
	switch {
	case c.Dir == "":
		return c, errNoDir
	case c.Model == nil:
		return c, errNoModel
	}
	if err := c.readSpec(); err != nil {
		return c, err
	}
	if c.Events == nil {
		c.Events = event.Discard
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.RunID == "" {
		c.RunID = agent.NewRunID(c.Clock.Now())
	}
	if c.KeepState == 0 {
		c.KeepState = DefaultKeepState
	}
	if c.Fallback != nil && c.Fallback.Rest == nil {
		// One rest for the run's calls, its sub-agents' included: a
		// primary that failed for one is not called by another before
		// its rest is over.
		fb := *c.Fallback
		fb.Rest = &fallback.Rest{}
		c.Fallback = &fb
	}
	return c, nil
}

// WithSpec returns c with its Spec checked and its retry counts
// (Retries, Backoff, RetryBudget) laid over Retry, as the run starts with
// them, for a caller that shows or checks the resulting Config before the
// run (batch.TaskConfig). A spec that cannot run is an error matching
// runspec.ErrInvalid.
func (c Config) WithSpec() (Config, error) {
	err := c.readSpec()
	return c, err
}

// DefaultKeepState is how long run records and checkpoints are kept
// unless Config.KeepState says otherwise.
const DefaultKeepState = 30 * 24 * time.Hour

// DefaultTools are the file tools (read_file, list_dir, write_file,
// edit_file) and run_command, which the gate asks about by default, in a
// sandbox of mode auto whose commands carry the workspace's journal.Mark,
// by which recover finds a command that outlived its run. A run without
// Config.Tools has these, with run_command in the run's own sandbox
// (the spec's Sandbox, SandboxNet and Env).
func DefaultTools(root *workspace.Root) []tool.Tool {
	sb, err := sandbox.New(sandbox.Config{Dir: root.Dir(), Set: []string{journal.Mark(root.Dir())}})
	if err != nil {
		// run_command then says why with each call.
		return append(fs.Tools(root), command.New(command.Config{Dir: root.Dir()}))
	}
	return append(fs.Tools(root), command.New(command.Config{Dir: root.Dir(), Sandbox: sb}))
}

// DefaultToolNames are the names of DefaultTools, sorted: what a gate
// rule of a run with the default tools may name.
func DefaultToolNames() []string {
	var names []string
	for _, t := range fs.Tools(nil) {
		names = append(names, t.Spec().Name)
	}
	names = append(names, command.Name)
	slices.Sort(names)
	return names
}

// defaultTools are DefaultTools with run_command in sb, and the file
// tools' size limit of the run.
func defaultTools(root *workspace.Root, sb *sandbox.Sandbox, timeout time.Duration, maxFileSize int64) []tool.Tool {
	return append(fs.ToolsWith(root, fs.Config{MaxFileSize: maxFileSize}), command.New(command.Config{Dir: root.Dir(), Sandbox: sb, Timeout: timeout}))
}
