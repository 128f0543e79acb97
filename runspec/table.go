package runspec

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
)

// Group names the part of a Spec an option belongs to.
type Group string

// The groups of a Spec, in the order of the table.
const (
	ModelGroup     Group = "model"
	LimitsGroup    Group = "limits"
	VerifyGroup    Group = "verify"
	GateGroup      Group = "gate"
	SandboxGroup   Group = "sandbox"
	LongRunGroup   Group = "long runs"
	EcosystemGroup Group = "ecosystem"
	EndGroup       Group = "end"
	// ProcessGroup holds the flags of `nightshift run` that are not part
	// of a run's configuration but say where it runs and what it writes
	// (the workspace, the events file, the state directory): they have no
	// field of Spec.
	ProcessGroup Group = "process"
)

// Option is one row of the table: a field of Spec and how each front end
// names it.
type Option struct {
	// Field is the name of the Spec field (promoted from its group); ""
	// for a process option.
	Field string
	// Group is the part of the Spec it belongs to.
	Group Group
	// Flag is its flag of `nightshift run` and `batch`, without the
	// dashes; "" when it has none.
	Flag string
	// Key is its task-file key (and a batch task line's); "" when it has
	// none.
	Key string
	// RoleKey is its key in a role of a pipeline file (docs/night.md); ""
	// when a role does not take it. It differs from Key where a pipeline
	// names models by their name under models (judge, fallback).
	RoleKey string
	// Default is the default as a person reads it.
	Default string
	// Doc is its doc line (the flag's usage).
	Doc string
}

// Table is every option of a run, once. Flags, keys and docs are checked
// against it (runspec and cmd/nightshift tests).
var Table = []Option{
	// model and fallback
	{Field: "Provider", Group: ModelGroup, Flag: "provider", Default: "anthropic if ANTHROPIC_API_KEY is set, else openai if OPENAI_API_KEY is set",
		Doc: "anthropic|openai|scripted (default: anthropic if ANTHROPIC_API_KEY is set, else openai if OPENAI_API_KEY is set)"},
	{Field: "ModelName", Group: ModelGroup, Flag: "model", Default: "$NIGHTSHIFT_MODEL, else the model table's default worker", Doc: "model name"},
	{Field: "BaseURL", Group: ModelGroup, Flag: "base-url", Default: "$ANTHROPIC_BASE_URL / $OPENAI_BASE_URL", Doc: "provider base URL (env ANTHROPIC_BASE_URL / OPENAI_BASE_URL); with openai, any OpenAI-compatible server"},
	{Field: "Scenario", Group: ModelGroup, Flag: "scenario", Doc: "scenario file for --provider scripted (docs/scenarios.md)"},
	{Field: "Stream", Group: ModelGroup, Flag: "stream", Default: "off", Doc: "use the provider's streaming API"},
	{Field: "MaxTokensField", Group: ModelGroup, Flag: "max-tokens-field", Default: "max_completion_tokens for api.openai.com, max_tokens for other servers",
		Doc: "OpenAI wire: send the cap as max_tokens or max_completion_tokens (default: max_completion_tokens for api.openai.com, max_tokens for other servers)"},
	{Field: "FallbackModel", Group: ModelGroup, Flag: "fallback-model", Key: "fallback_model", RoleKey: "fallback", Default: "none",
		Doc: "a second model, MODEL or PROVIDER:MODEL, for calls whose retries ran out on a timing failure or that were answered empty twice"},
	{Field: "FallbackOn", Group: ModelGroup, Flag: "fallback-on", Key: "fallback_on", RoleKey: "fallback_on", Doc: "quota: fall back on quota failures too (default: they end the run)"},

	// limits
	{Field: "MaxSteps", Group: LimitsGroup, Flag: "max-steps", Key: "max_steps", RoleKey: "max_steps", Default: "20", Doc: "step brake: the most worker model calls"},
	{Field: "MaxTokens", Group: LimitsGroup, Flag: "max-tokens", Key: "max_tokens", RoleKey: "max_tokens", Default: "4096", Doc: "output cap per call"},
	{Field: "Retries", Group: LimitsGroup, Flag: "retries", Key: "retries", Default: "3", Doc: "retries per model call after the first (N means at most N+1 calls)"},
	{Field: "Backoff", Group: LimitsGroup, Flag: "backoff", Default: "1s", Doc: "first retry wait; doubles with jitter, never shorter than Retry-After"},
	{Field: "RetryBudget", Group: LimitsGroup, Flag: "retry-budget", Default: "10m", Doc: "total wait allowed per model call; a 429 with Retry-After is waited out within it instead of counting against --retries"},
	{Field: "Breaker", Group: LimitsGroup, Key: "breaker", RoleKey: "breaker", Default: "{failures: 5, cool: 30s}",
		Doc: "the endpoint's circuit breaker, shared by this machine's nightshift processes: {failures: N, cool: D} (--breaker-failures, --breaker-cool)"},
	{Field: "BreakerFailures", Group: LimitsGroup, Flag: "breaker-failures", Default: "5",
		Doc: "open the endpoint's circuit breaker after N connection failures, 5xx or 529 in a row across this machine's nightshift processes: no call until the cool-off ends, then one probe"},
	{Field: "BreakerCool", Group: LimitsGroup, Flag: "breaker-cool", Default: "30s",
		Doc: "how long an open circuit breaker keeps every call from the endpoint before one probes it; a call waits within --retry-budget, past it the run pauses (exit 11, resumable)"},
	{Field: "RPM", Group: LimitsGroup, Flag: "rpm", Default: "learned", Doc: "pace requests to at most N per minute per credential, across this machine's nightshift processes (default: learned from rate-limit headers and 429s)"},
	{Field: "TPM", Group: LimitsGroup, Flag: "tpm", Default: "learned", Doc: "pace estimated tokens to at most N per minute per credential (default: learned)"},
	{Field: "BudgetUSD", Group: LimitsGroup, Flag: "budget-usd", Key: "budget_usd", RoleKey: "budget_usd", Default: "none",
		Doc: "pause the run (exit 9, resumable) before a call that would take its spend past X dollars, priced by the model table; 0: none"},
	{Field: "BudgetTokens", Group: LimitsGroup, Flag: "budget-tokens", Key: "budget_tokens", RoleKey: "budget_tokens", Default: "none",
		Doc: "pause the run (exit 9, resumable) before a call that would take its tokens past N; 0: none"},
	{Field: "Timeout", Group: LimitsGroup, Flag: "timeout", Key: "timeout", RoleKey: "timeout", Default: "none", Doc: "pause the run (exit 10, resumable) once it has run this long (wall clock); 0: none"},
	{Field: "Stall", Group: LimitsGroup, Flag: "stall", Default: "2m", Doc: "cancel and retry a streaming call that receives nothing for this long (until its first byte, plus the time the server needs to read the prompt); 0: never"},
	{Field: "CallTimeout", Group: LimitsGroup, Flag: "call-timeout", Default: "10m", Doc: "cancel and retry a call that does not stream and has no reply after this long; 0: never"},
	{Field: "LoopLimit", Group: LimitsGroup, Flag: "loop-limit", Key: "loop_limit", RoleKey: "loop_limit", Default: "3",
		Doc: "the same tool call with the same result this many times in a row warns the model once; once more ends the run (step-limit); -1: off"},
	{Field: "MaxCallsPerReply", Group: LimitsGroup, Flag: "max-calls-per-reply", Key: "max_calls_per_reply", RoleKey: "max_calls_per_reply", Default: "64",
		Doc: "the most tool calls of one model reply that run; the calls past it are answered with an error saying why"},

	// verify
	{Field: "Checks", Group: VerifyGroup, Flag: "check", Key: "checks", RoleKey: "checks", Doc: "verifier rule, repeatable (docs/checks.md), e.g. min-chars:post.md:4000"},
	{Field: "Rubric", Group: VerifyGroup, Key: "rubric", RoleKey: "rubric", Doc: "extra criteria for the judge"},
	{Field: "NoJudge", Group: VerifyGroup, Flag: "no-judge", Key: "no_judge", RoleKey: "no_judge", Default: "off", Doc: "verify with the rules only, no judge model"},
	// The flag switches off what the key switches on: --no-claims is
	// claims: false.
	{Field: "Claims", Group: VerifyGroup, Flag: "no-claims", Key: "claims", RoleKey: "claims", Default: "on",
		Doc: "do not check the final answer's claims by code (docs/checks.md); as a key, claims: false"},
	{Field: "JudgeModel", Group: VerifyGroup, Flag: "judge-model", Key: "judge_model", RoleKey: "judge", Default: "the worker's",
		Doc: "judge model: MODEL or PROVIDER:MODEL (default: the worker's)"},
	{Field: "MaxVerifyRounds", Group: VerifyGroup, Flag: "max-verify-rounds", Key: "max_verify_rounds", RoleKey: "max_verify_rounds", Default: "2",
		Doc: "FAILs fed back before a FAIL ends the run as unverified"},
	{Field: "OutputSchema", Group: VerifyGroup, Flag: "output-schema", Key: "output_schema", RoleKey: "output_schema", Doc: "JSON Schema FILE the final answer must satisfy"},

	// gate
	{Field: "Approve", Group: GateGroup, Flag: "approve", Key: "approve", RoleKey: "approve", Default: "read=allow,write=allow,danger=ask",
		Doc: "gate policy, repeatable, over the default read=allow,write=allow,danger=ask: CLASS=… or TOOL=allow|ask|deny"},

	// sandbox
	{Field: "Sandbox", Group: SandboxGroup, Flag: "sandbox", Key: "sandbox", RoleKey: "sandbox", Default: "auto",
		Doc: "how commands are confined: auto (bwrap where it works, else none), bwrap or none (docs/side-effects.md)"},
	{Field: "SandboxNet", Group: SandboxGroup, Flag: "sandbox-net", Key: "sandbox_net", RoleKey: "sandbox_net", Default: "off", Doc: "let sandboxed commands reach the network"},
	{Field: "Env", Group: SandboxGroup, Flag: "env", Key: "env", RoleKey: "env", Doc: "pass the variable NAME to commands and stdio MCP servers, repeatable (never a credential)"},
	{Field: "CommandTimeout", Group: SandboxGroup, Flag: "command-timeout", Key: "command_timeout", RoleKey: "command_timeout", Default: "2m",
		Doc: "how long one command may run before it and everything it started are killed"},
	{Field: "MaxFileSize", Group: SandboxGroup, Flag: "max-file-size", Key: "max_file_size", Default: "256MiB",
		Doc: "the largest file read_file, write_file and edit_file touch (256MiB, 1GiB, ...): past it they answer with an error"},

	// long runs
	{Field: "NoCache", Group: LongRunGroup, Flag: "no-cache", Key: "no_cache", Default: "off", Doc: "turn prompt caching off (on by default: Anthropic cache breakpoints, a byte-stable prefix for OpenAI)"},
	{Field: "ContextWindow", Group: LongRunGroup, Flag: "context-window", Key: "context_window", RoleKey: "context_window", Default: "the model table's",
		Doc: "the model's context window in tokens, for compaction (default: the model table's, else what a local server says: docs/local-models.md; unknown: no compaction)"},
	{Field: "ModelsFile", Group: LongRunGroup, Flag: "models", Key: "models_file", Doc: "YAML FILE of model rows (prices, context windows) laid over the built-in model table (docs/budgets.md)"},

	// ecosystem
	{Field: "MCP", Group: EcosystemGroup, Key: "mcp", Doc: "MCP servers by name: a command or a url, a class, classes per tool"},
	{Field: "MCPFlags", Group: EcosystemGroup, Flag: "mcp", Doc: "MCP server whose tools the run gets (NAME__tool), repeatable: NAME=COMMAND [ARG...] (stdio, started in the workspace) or NAME=URL (streamable HTTP)"},
	{Field: "MCPClass", Group: EcosystemGroup, Flag: "mcp-class", Doc: "class of an MCP server's tools for the gate, repeatable: SERVER=read|write|danger or SERVER__TOOL=CLASS (default danger)"},
	{Field: "MCPEnv", Group: EcosystemGroup, Flag: "mcp-env", Doc: "give a stdio MCP server the variable NAME of nightshift's environment, repeatable: SERVER=NAME (servers get only PATH, HOME, LANG, ... and --env's otherwise; a credential is given only this way, with a warning)"},
	{Field: "MCPTrust", Group: EcosystemGroup, Flag: "mcp-trust", Doc: "let the stdio MCP server NAME start what the workspace holds (a program, script or module inside it, which a run's commands can change), repeatable; as trust_workspace: true under it in a task file's mcp:"},
	{Field: "Subagents", Group: EcosystemGroup, Flag: "subagents", RoleKey: "subagents", Default: "off", Doc: "give the worker delegate_task {brief}: a sub-agent with the read-class tools only"},
	{Field: "SubagentSteps", Group: EcosystemGroup, Flag: "subagent-steps", Default: "10", Doc: "a sub-agent's step brake"},
	{Field: "Memory", Group: EcosystemGroup, Flag: "memory", RoleKey: "memory", Default: "off (a pipeline's builder: on)",
		Doc: "give the worker remember and recall over notes kept per workspace in the state directory; a run starts with earlier runs' notes and failure reasons"},
	{Field: "Otel", Group: EcosystemGroup, Flag: "otel", Default: "off", Doc: "export OpenTelemetry traces over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT, default http://localhost:4318); the OTEL_* variables alone turn it on too"},
	{Field: "OtelFile", Group: EcosystemGroup, Flag: "otel-file", Doc: "append the traces to FILE as OTLP JSON lines, for offline use"},
	{Field: "OtelContent", Group: EcosystemGroup, Flag: "otel-content", Default: "off", Doc: "record prompts, answers, tool inputs and results on the spans (default: left out)"},

	// end of the run
	{Field: "Keep", Group: EndGroup, Flag: "keep", RoleKey: "keep", Default: "off", Doc: "commit the workspace changes of every outcome: no rollback, no pause"},
	{Field: "RollbackOnInterrupt", Group: EndGroup, Flag: "rollback-on-interrupt", Key: "rollback_on_interrupt", RoleKey: "rollback_on_interrupt", Default: "off",
		Doc: "roll an interrupted run back at once instead of pausing it for --resume"},

	// the process: where the run is and what it writes
	{Group: ProcessGroup, Flag: "dir", Key: "dir", Default: ".", Doc: "workspace root the tools may touch"},
	{Group: ProcessGroup, Flag: "events", Doc: "write events as JSON lines to FILE (docs/events.md)"},
	{Group: ProcessGroup, Flag: "task-file", Doc: "YAML task file: task, checks, rubric, limits (flags override it)"},
	{Group: ProcessGroup, Flag: "resume", Doc: "go on with the paused run RUN_ID (its recorded configuration; only budget and time flags may be given with it)"},
	{Group: ProcessGroup, Flag: "state-dir", Doc: "where nightshift keeps its state (journals, audit log, run records), outside every workspace (default $NIGHTSHIFT_STATE_DIR, else $XDG_STATE_HOME/nightshift, else ~/.local/state/nightshift)"},
	{Group: ProcessGroup, Flag: "keep-state", Default: "30d", Doc: "prune this workspace's run records and checkpoints older than this at start (30d, 12h; 0 keeps all)"},
}

// ByFlag returns the option of a flag (without dashes).
func ByFlag(flag string) (Option, bool) { return find(func(o Option) bool { return o.Flag == flag }) }

// ByKey returns the option of a task-file key.
func ByKey(key string) (Option, bool) { return find(func(o Option) bool { return o.Key == key }) }

// ByRoleKey returns the option of a pipeline role's key.
func ByRoleKey(key string) (Option, bool) {
	return find(func(o Option) bool { return o.RoleKey == key })
}

// ByField returns the option of a Spec field.
func ByField(field string) (Option, bool) {
	return find(func(o Option) bool { return o.Field != "" && o.Field == field })
}

func find(match func(Option) bool) (Option, bool) {
	i := slices.IndexFunc(Table, match)
	if i < 0 {
		return Option{}, false
	}
	return Table[i], true
}

// Keys returns the task-file keys of the table, in its order.
func Keys() []string { return collect(func(o Option) string { return o.Key }) }

// RoleKeys returns the pipeline role keys of the table, in its order.
func RoleKeys() []string { return collect(func(o Option) string { return o.RoleKey }) }

// Flags returns the flags of the table, in its order.
func Flags() []string { return collect(func(o Option) string { return o.Flag }) }

func collect(get func(Option) string) []string {
	var out []string
	for _, o := range Table {
		if v := get(o); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Value returns the field of s the option names, addressable: a test or a
// front end sets and reads it through the table. It panics for a process
// option or a field Spec does not have: the table is wrong.
func (o Option) Value(s *Spec) reflect.Value {
	if o.Field == "" {
		panic(fmt.Sprintf("runspec: option --%s is the process's, not a field of Spec", o.Flag))
	}
	index, ok := fieldIndex()[o.Field]
	if !ok {
		panic(fmt.Sprintf("runspec: Table names field %s, which Spec does not have", o.Field))
	}
	return reflect.ValueOf(s).Elem().FieldByIndex(index)
}

// fieldIndex maps the name of each field of Spec, its embedded structs'
// promoted fields included, to its index path: one walk of the type for
// the process, where FieldByName searched the embedded structs again for
// every option at every merge (120 KB of each run's start).
var fieldIndex = sync.OnceValue(func() map[string][]int {
	m := map[string][]int{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Spec]()) {
		if f.IsExported() {
			m[f.Name] = f.Index
		}
	}
	return m
})

// Name names the option as a person gave it: "--flag (task file: key)",
// or the one of them it has.
func (o Option) Name() string {
	switch {
	case o.Flag != "" && o.Key != "":
		return fmt.Sprintf("--%s (task file: %s)", o.Flag, o.Key)
	case o.Flag != "":
		return "--" + o.Flag
	case o.Key != "":
		return o.Key
	}
	return o.RoleKey
}
