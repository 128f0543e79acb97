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
// A run's options are declared once, in a run spec (Spec, package
// runspec), which the flags, task files, batch lines, pipeline roles and
// checkpoints all decode into: the lifecycle takes it as it is and lays
// it over the fields below when the run starts. The fields beside it are
// what a spec cannot say (the clock, the stores, the sinks, the live
// model and verifier the caller resolved) and, for a library caller who
// has no spec, the same limits set by hand.
type Config struct {
	// Spec is the run's options: its limits, gate rules, sandbox, long
	// runs and end-of-run wishes, each field it sets replacing the
	// Config's own (the lists add to its own; switches only turn on),
	// checked first
	// (runspec.Spec.Validate: an error matching runspec.ErrInvalid that
	// names the flag and the key). It is recorded in the run's checkpoint
	// (Checkpoint.Spec), and a Resume whose Config has none goes on with
	// the recorded one. What needs the environment (the model, the judge,
	// the fallback, the prices, the schema files) the caller resolves.
	// Default none: the fields alone.
	Spec *runspec.Spec
	// laid is the spec laid over the fields already (WithSpec): a new
	// Spec is laid again.
	laid *runspec.Spec

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
	// ModelName is sent with each request and kept in the run record;
	// empty lets the model choose.
	ModelName string
	// System is the worker's system prompt; default agent.DefaultSystem.
	System string

	// Tools returns the run's tools over its workspace; default the file
	// tools and run_command in the run's sandbox (see Sandbox), whose
	// commands carry journal.Mark(root.Dir()) in their environment, so
	// that `nightshift recover` can tell that one outlived a killed run. A
	// caller's own tool that starts processes should do both: run them as
	// Sandbox says, and give them the mark.
	Tools func(root *workspace.Root) []tool.Tool

	// Sandbox says how the run's commands (run_command and the cmd:
	// checks) are confined: its Mode (default auto), Net and Env. Its Dir
	// is the workspace, and the run's state folder is added to its Hide;
	// see package sandbox. A sandbox that cannot be had (Mode bwrap
	// without a working bubblewrap, Env naming a credential) keeps the
	// run from starting with an error matching sandbox.ErrConfig. A
	// stdio MCP server (MCP) starts with the same environment as the
	// commands, Env's variables included, outside the sandbox.
	Sandbox sandbox.Config
	// CommandTimeout bounds each command of run_command; default
	// command.DefaultTimeout (2 minutes).
	CommandTimeout time.Duration
	// MaxFileSize is the file tools' size limit in bytes: read_file,
	// write_file and edit_file answer a file or a content past it with an
	// error result and never read it (fs.Config.MaxFileSize); default
	// fs.DefaultMaxFileSize (256 MiB).
	MaxFileSize int64
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

	// Policy is the gate's policy; the zero Policy is gate's default
	// (read and write allowed, danger asks).
	Policy gate.Policy
	// Asker asks a person when the policy says ask; default nobody, so
	// ask means deny. gate.Parker parks the run instead (the night).
	Asker gate.Asker
	// Approved holds calls a person approved beforehand; default none.
	Approved *gate.Approvals
	// Audit receives every gate decision as well as StateDir/audit.jsonl;
	// default only the file.
	Audit gate.Auditor

	// Retry is the retry policy of every model call of the run: the
	// worker's first calls, its continuations and regenerations, and the
	// judge's. The zero Policy is the defaults (3 retries, 1s backoff, the
	// retry budget); retry.NoRetries says none. Retry.Limiter paces the
	// worker's credential; default none. Retry.Clock defaults to Clock.
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
	// satisfy; default none.
	OutputSchema *jsonschema.Resolved
	// MaxSteps, MaxTokens, MaxTokensCap and MaxVerifyRounds are the loop's
	// limits, with agent.Config's defaults: 20 steps, 4096 and 32768
	// tokens, 2 verify rounds (negative: none).
	MaxSteps        int
	MaxTokens       int
	MaxTokensCap    int
	MaxVerifyRounds int

	// Budget limits the run's spend: every model call counted, the
	// judge's too; default none. A call that would likely cross it is not
	// made, and the run ends budget: paused, resumable (Resume) with a
	// higher budget. A resumed run's spend goes on from its checkpoint.
	Budget budget.Limits
	// Price prices the worker's calls (from the model table, package
	// llm/models), JudgePrice the judge's; default Price. Nil prices
	// every call unknown: the cost is reported unknown, never zero, and a
	// dollar budget cannot be kept (the run stops before its first call).
	Price      budget.Pricer
	JudgePrice budget.Pricer
	// Timeout is the run's wall-clock limit, timed on Clock, for each Run
	// or Resume on its own; default none. When it passes, the call or
	// tool running is stopped and the run ends timeout: paused, resumable.
	Timeout time.Duration
	// LoopLimit is how many identical tool calls in a row (same tool,
	// input and result) warn the model once; one more ends the run as
	// step-limit. Default 3 (agent.DefaultLoopLimit); negative: none.
	LoopLimit int
	// MaxCallsPerReply is the most tool calls of one model reply that
	// run; the calls past it are answered with an is_error result saying
	// why (`--max-calls-per-reply`). Default 64
	// (agent.DefaultMaxCallsPerReply); negative: no cap.
	MaxCallsPerReply int

	// NoCache turns the providers' prompt caching off for every call of
	// the run (`--no-cache`); default false: caching is on.
	NoCache bool
	// Fallback is a second model for every model call of the run, the
	// worker's, the judge's and the compaction's: a call whose retries
	// ran out on a timing failure, or that was answered empty twice in a
	// row, is made again on it, and the primary rests until its last
	// Retry-After (or 60 s) before it is tried again (package fallback;
	// `--fallback-model`). Default none.
	Fallback *agent.Fallback
	// ContextWindow is the worker model's context window in tokens (the
	// model table's, or `--context-window`); default 0: unknown, and the
	// history is never compacted. Before a call whose estimated prompt
	// would pass CompactAt of it (default 0.8), the older turns are
	// replaced by a summary the model writes.
	ContextWindow int
	CompactAt     float64
	// ResultCap is the size in bytes above which a tool result is kept
	// whole in the run's checkpoint folder and cut in the history to its
	// head and tail, with a note naming the read_result tool; default
	// agent.DefaultResultCap (32 KiB), or a tenth of a small context
	// window; negative never cuts.
	ResultCap int

	// Keep commits the changes of every run, whatever its outcome
	// (`--keep`): nothing is rolled back, and a paused run is not
	// resumable. Default false: a run that ends done commits; a paused
	// one (budget, timeout, interrupted) keeps its changes and its
	// journal pending for Resume or Recover; any other is rolled back,
	// and its patch kept in the run record.
	Keep bool
	// RollbackOnInterrupt rolls an interrupted run back like a failed
	// one, instead of pausing it (`--rollback-on-interrupt`); default
	// false.
	RollbackOnInterrupt bool
	// RollbackOnLimit rolls a run that its budget or its time limit
	// stopped back like a failed one, instead of pausing it: for a caller
	// that never resumes such a run (the night's builder, whose attempt
	// that reached its own limits is a failed step of its task). Default
	// false: it pauses, resumable with a higher limit.
	RollbackOnLimit bool
	// Settings are recorded in the run's checkpoint, untouched, for the
	// caller to rebuild this Config from when it resumes the run
	// (ReadCheckpoint): `nightshift run` keeps its flags there. Default
	// none.
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
	// subagent, memory across attempts, traces. Each is off by default.

	// MCP are MCP servers whose tools join the run's (package tool/mcp),
	// named SERVER__tool: started in the workspace before the first model
	// call and stopped when the run ends, a stdio one with the commands'
	// environment (see Sandbox) and the variables its own Env names, never
	// nightshift's keys otherwise. A server that does not start,
	// or a tool name that collides, keeps the run from starting (an error
	// matching mcp.ErrConfig). Default none.
	MCP []mcp.Server
	// Subagents adds delegate_task {brief}: a child loop with the run's
	// read-class tools only, its own step brake (SubagentSteps, default
	// 10), and the run's model, retry policy, limiter, gate, events and
	// trace; its final answer is the tool's result, its usage counts in
	// the run's. The child has no delegate_task. Default off.
	Subagents     bool
	SubagentSteps int
	// Memory adds remember {note} and recall {query} over its store, tells
	// the worker (in its system prompt, which the judge never sees) what
	// earlier attempts noted and why they failed, and adds this run's
	// failure reason to the store when it does not end done. Nil: no
	// memory.
	Memory *Memory
	// Trace records the run, its model calls and its tool calls as
	// OpenTelemetry spans (package tracing). Nil: no trace.
	Trace *tracing.Tracer
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

// withDefaults fills the zero fields the lifecycle itself reads; the
// loop's limits keep their zero values, which the loop defaults.
func (c Config) withDefaults() (Config, error) {
	switch {
	case c.Dir == "":
		return c, errNoDir
	case c.Model == nil:
		return c, errNoModel
	}
	c, err := c.WithSpec()
	if err != nil {
		return c, err
	}
	if err := c.validate(); err != nil {
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

// WithSpec returns c with its Spec laid over its fields, as the run
// starts with them, for a caller that shows or checks the resulting
// Config before the run (batch.TaskConfig); the run does not lay the
// spec over it a second time. A spec that cannot run is an error
// matching runspec.ErrInvalid.
func (c Config) WithSpec() (Config, error) {
	if c.Spec == nil || c.laid == c.Spec {
		return c, nil
	}
	spec := c.Spec.Clone()
	if err := c.applySpec(&spec); err != nil {
		return c, err
	}
	c.laid = c.Spec
	return c, nil
}

// DefaultKeepState is how long run records and checkpoints are kept
// unless Config.KeepState says otherwise.
const DefaultKeepState = 30 * 24 * time.Hour

// DefaultTools are the file tools (read_file, list_dir, write_file,
// edit_file) and run_command, which the gate asks about by default, in a
// sandbox of mode auto whose commands carry the workspace's journal.Mark,
// by which recover finds a command that outlived its run. A run without
// Config.Tools has these, with run_command in the run's own sandbox
// (Config.Sandbox).
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
