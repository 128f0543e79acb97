package runspec

import (
	"maps"
	"reflect"
	"slices"

	"github.com/nightshift-dev/nightshift/sandbox"
)

// Spec is one run's configuration, built from groups. Its yaml tags are
// the task-file keys (a group is inlined: a task file is flat), its json
// tags the names a checkpoint keeps every field under, those without a
// task-file key included. Every zero field means its default, named in
// the field's comment and in Table.
type Spec struct {
	Model     `yaml:",inline"`
	Limits    `yaml:",inline"`
	Verify    `yaml:",inline"`
	Gate      `yaml:",inline"`
	Commands  `yaml:",inline"`
	LongRun   `yaml:",inline"`
	Ecosystem `yaml:",inline"`
	End       `yaml:",inline"`
}

// Model is the model group: which model answers the worker's calls,
// where, and which second model answers those it cannot.
type Model struct {
	// Provider is anthropic, openai or scripted (Providers); default
	// anthropic when ANTHROPIC_API_KEY is set, else openai when
	// OPENAI_API_KEY is.
	Provider string `yaml:"-" json:"provider,omitempty"`
	// ModelName is the provider's model name; default $NIGHTSHIFT_MODEL,
	// else the model table's default worker.
	ModelName string `yaml:"-" json:"model,omitempty"`
	// BaseURL is the provider's endpoint; default $ANTHROPIC_BASE_URL or
	// $OPENAI_BASE_URL, else its public API.
	BaseURL string `yaml:"-" json:"base_url,omitempty"`
	// Scenario is the scripted model's scenario file.
	Scenario string `yaml:"-" json:"scenario,omitempty"`
	// Stream uses the provider's streaming API; default off.
	Stream bool `yaml:"-" json:"stream,omitempty"`
	// MaxTokensField is the OpenAI wire's field for the output cap:
	// max_tokens or max_completion_tokens; default by endpoint.
	MaxTokensField string `yaml:"-" json:"max_tokens_field,omitempty"`
	// FallbackModel is MODEL or PROVIDER:MODEL (in a pipeline: a model
	// under models) for the calls the worker's model cannot answer;
	// default none.
	FallbackModel string `yaml:"fallback_model,omitempty" json:"fallback_model,omitempty"`
	// FallbackOn is "quota" to fall back on quota failures too; default
	// "": timing failures and empty answers only.
	FallbackOn string `yaml:"fallback_on,omitempty" json:"fallback_on,omitempty"`
}

// Limits is the limits group: steps, tokens, spend, time, retries and
// loops.
type Limits struct {
	// MaxSteps is the step brake: the most worker model calls; default 20.
	MaxSteps int `yaml:"max_steps,omitempty" json:"max_steps,omitempty"`
	// MaxTokens is the output cap of a call; default 4096.
	MaxTokens int `yaml:"max_tokens,omitempty" json:"max_tokens,omitempty"`
	// Retries are the retries per model call after the first; nil means
	// the default, 3; 0 means none.
	Retries *int `yaml:"retries,omitempty" json:"retries,omitempty"`
	// Backoff is the first retry's wait; default 1s.
	Backoff Duration `yaml:"-" json:"backoff,omitempty"`
	// RetryBudget is the total wait allowed per model call; default 10m.
	RetryBudget Duration `yaml:"-" json:"retry_budget,omitempty"`
	// RPM and TPM pace requests and estimated tokens per minute per
	// credential; default learned from the provider.
	RPM int `yaml:"-" json:"rpm,omitempty"`
	TPM int `yaml:"-" json:"tpm,omitempty"`
	// BudgetUSD and BudgetTokens pause the run before a call that would
	// take it past them; default none.
	BudgetUSD    float64 `yaml:"budget_usd,omitempty" json:"budget_usd,omitempty"`
	BudgetTokens int64   `yaml:"budget_tokens,omitempty" json:"budget_tokens,omitempty"`
	// Timeout is the run's wall-clock limit; default none.
	Timeout Duration `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	// Stall cancels and retries a streaming call quiet this long; nil
	// means the default, 2m; 0 never.
	Stall *Duration `yaml:"-" json:"stall,omitempty"`
	// CallTimeout cancels and retries a call that does not stream after
	// this long; nil means the default, 10m; 0 never.
	CallTimeout *Duration `yaml:"-" json:"call_timeout,omitempty"`
	// LoopLimit is how many identical tool calls in a row warn the model
	// once; one more ends the run. Nil or 0 means the default, 3; -1 off.
	LoopLimit *int `yaml:"loop_limit,omitempty" json:"loop_limit,omitempty"`
	// MaxCallsPerReply caps the tool calls of one model reply: those past
	// it are answered with an is_error result saying why, and not run;
	// default 64 (DefaultMaxCallsPerReply).
	MaxCallsPerReply int `yaml:"max_calls_per_reply,omitempty" json:"max_calls_per_reply,omitempty"`
	// Breaker is the circuit breaker of the endpoint the run calls (task
	// file and pipeline key breaker: {failures: N, cool: D}).
	Breaker `yaml:"breaker,omitempty" json:"breaker,omitzero"`
}

// Breaker is the circuit breaker of an endpoint and credential, shared
// by every run that calls it on this machine (package breaker): after
// BreakerFailures outage failures in a row (a failed connection, a 5xx, a
// 529) across all of them it opens, no run calls the endpoint for
// BreakerCool, and then one call probes it. A pipeline's or a batch's
// breaker takes the configuration of the first run that calls the
// endpoint. Its fields carry the prefix so that, promoted to Spec, the
// table's rows of --breaker-failures and --breaker-cool name them.
type Breaker struct {
	// BreakerFailures is the outage failures in a row that open it;
	// default 5.
	BreakerFailures int `yaml:"failures,omitempty" json:"failures,omitempty"`
	// BreakerCool is how long it stays open before a probe; default 30s.
	BreakerCool Duration `yaml:"cool,omitempty" json:"cool,omitempty"`
}

// DefaultMaxCallsPerReply is the per-reply tool-call cap when a Spec
// gives none.
const DefaultMaxCallsPerReply = 64

// Verify is the verify group: the rules, the judge and its rounds, the
// answer's schema.
type Verify struct {
	// Checks are verifier rules (docs/checks.md); default none beyond
	// not-empty.
	Checks List `yaml:"checks,omitempty" json:"checks,omitempty"`
	// Rubric is extra criteria for the judge.
	Rubric string `yaml:"rubric,omitempty" json:"rubric,omitempty"`
	// NoJudge leaves only the rules; default false: the judge runs.
	NoJudge bool `yaml:"no_judge,omitempty" json:"no_judge,omitempty"`
	// Claims false switches the claims check off (package verify/claims:
	// the final answer's claims counted by code); nil or true: on, the
	// default. Its flag says it the other way round: --no-claims.
	Claims *bool `yaml:"claims,omitempty" json:"claims,omitempty"`
	// JudgeModel is MODEL or PROVIDER:MODEL (in a pipeline: a model under
	// models); default the worker's model.
	JudgeModel string `yaml:"judge_model,omitempty" json:"judge_model,omitempty"`
	// MaxVerifyRounds are the FAILs fed back before a FAIL ends the run
	// unverified; default 2.
	MaxVerifyRounds int `yaml:"max_verify_rounds,omitempty" json:"max_verify_rounds,omitempty"`
	// OutputSchema is a JSON Schema file the final answer must satisfy,
	// relative to the file that names it; default none.
	OutputSchema string `yaml:"output_schema,omitempty" json:"output_schema,omitempty"`
}

// Gate is the gate group.
type Gate struct {
	// Approve holds gate policies over the default
	// read=allow,write=allow,danger=ask: CLASS=… or TOOL=allow|ask|deny.
	Approve List `yaml:"approve,omitempty" json:"approve,omitempty"`
}

// Commands is the sandbox group: how run_command and the cmd: checks are
// confined, and for how long.
type Commands struct {
	// Sandbox is auto, bwrap or none; default auto.
	Sandbox string `yaml:"sandbox,omitempty" json:"sandbox,omitempty"`
	// SandboxNet lets sandboxed commands reach the network; default off.
	SandboxNet bool `yaml:"sandbox_net,omitempty" json:"sandbox_net,omitempty"`
	// Env names variables commands get on top of the allow-list; never a
	// credential.
	Env List `yaml:"env,omitempty" json:"env,omitempty"`
	// CommandTimeout bounds each command; default 2m.
	CommandTimeout Duration `yaml:"command_timeout,omitempty" json:"command_timeout,omitempty"`
	// MaxFileSize is the largest file the file tools touch ("256MiB",
	// "1GiB"); past it they answer with an error. Default 256MiB.
	MaxFileSize string `yaml:"max_file_size,omitempty" json:"max_file_size,omitempty"`
}

// LongRun is the long-runs group: caching, compaction, the model table.
type LongRun struct {
	// NoCache turns prompt caching off; default on.
	NoCache bool `yaml:"no_cache,omitempty" json:"no_cache,omitempty"`
	// ContextWindow is the model's context window in tokens, for
	// compaction; default the model table's (unknown: no compaction).
	ContextWindow int `yaml:"context_window,omitempty" json:"context_window,omitempty"`
	// ModelsFile is a model table file laid over the built-in one,
	// relative to the file that names it; default none.
	ModelsFile string `yaml:"models_file,omitempty" json:"models_file,omitempty"`
}

// Ecosystem is the ecosystem group: MCP servers, sub-agents, memory,
// traces.
type Ecosystem struct {
	// MCP are MCP servers by name (a task file's mcp: section).
	MCP map[string]MCPServer `yaml:"mcp,omitempty" json:"mcp,omitempty"`
	// MCPFlags, MCPClass, MCPEnv and MCPTrust are --mcp, --mcp-class,
	// --mcp-env and --mcp-trust as given (cmd/nightshift parses them).
	MCPFlags []string `yaml:"-" json:"mcp_flags,omitempty"`
	MCPClass []string `yaml:"-" json:"mcp_class,omitempty"`
	MCPEnv   []string `yaml:"-" json:"mcp_env,omitempty"`
	// MCPTrust are --mcp-trust's server names: each may start what the
	// workspace holds (MCPServer.TrustWorkspace).
	MCPTrust []string `yaml:"-" json:"mcp_trust,omitempty"`
	// Subagents adds delegate_task; SubagentSteps is the sub-agents'
	// step brake, default 10.
	Subagents     bool `yaml:"-" json:"subagents,omitempty"`
	SubagentSteps int  `yaml:"-" json:"subagent_steps,omitempty"`
	// Memory keeps notes across attempts; default off.
	Memory bool `yaml:"-" json:"memory,omitempty"`
	// Otel, OtelFile and OtelContent record traces (OTLP, a file, with
	// the messages' content); default off.
	Otel        bool   `yaml:"-" json:"otel,omitempty"`
	OtelFile    string `yaml:"-" json:"otel_file,omitempty"`
	OtelContent bool   `yaml:"-" json:"otel_content,omitempty"`
}

// End is what the end of a run does to the workspace, beyond the
// lifecycle's rule (done commits, paused keeps, any other rolls back).
type End struct {
	// Keep commits every outcome: no rollback, no pause; default off.
	Keep bool `yaml:"-" json:"keep,omitempty"`
	// RollbackOnInterrupt rolls an interrupted run back instead of
	// pausing it; default off.
	RollbackOnInterrupt bool `yaml:"rollback_on_interrupt,omitempty" json:"rollback_on_interrupt,omitempty"`
}

// Clone is a copy of s that shares nothing with it: its pointers, lists
// and maps are copied too, so that a front end may lay a copy over
// another spec, or record it, while its own variables (a flag's) change.
func (s Spec) Clone() Spec {
	c := s
	c.Retries, c.LoopLimit, c.Claims = clonePtr(s.Retries), clonePtr(s.LoopLimit), clonePtr(s.Claims)
	c.Stall, c.CallTimeout = clonePtr(s.Stall), clonePtr(s.CallTimeout)
	c.Checks, c.Approve, c.Env = slices.Clone(s.Checks), slices.Clone(s.Approve), slices.Clone(s.Env)
	c.MCPFlags, c.MCPClass, c.MCPEnv, c.MCPTrust = slices.Clone(s.MCPFlags), slices.Clone(s.MCPClass), slices.Clone(s.MCPEnv), slices.Clone(s.MCPTrust)
	c.MCP = maps.Clone(s.MCP)
	return c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// Over returns s laid over base, as a task's spec goes over a batch's:
// each field s sets (a zero field is "not set here") replaces base's,
// its lists add the entries base lacks, its mcp: servers join base's
// (s's winning a name both have), and its switches turn on, never off.
// It walks Table, so that an option added there is laid too.
func (s Spec) Over(base Spec) Spec {
	out := base.Clone()
	top := s.Clone()
	for _, o := range Table {
		if o.Field == "" {
			continue
		}
		dst, src := o.Value(&out), o.Value(&top)
		switch {
		case src.Kind() == reflect.Struct:
			// A group of fields (Breaker), laid by their own rows.
		case src.Kind() == reflect.Bool:
			dst.SetBool(dst.Bool() || src.Bool())
		case src.Kind() == reflect.Slice:
			for i := range src.Len() {
				if !containsValue(dst, src.Index(i)) {
					dst.Set(reflect.Append(dst, src.Index(i)))
				}
			}
		case src.Kind() == reflect.Map:
			if src.Len() == 0 {
				continue
			}
			if dst.IsNil() {
				dst.Set(reflect.MakeMap(src.Type()))
			}
			for _, k := range src.MapKeys() {
				dst.SetMapIndex(k, src.MapIndex(k))
			}
		case !src.IsZero():
			dst.Set(src)
		}
	}
	return out
}

func containsValue(list, v reflect.Value) bool {
	for i := range list.Len() {
		if list.Index(i).Interface() == v.Interface() {
			return true
		}
	}
	return false
}

// SandboxConfig is how the spec confines commands (package sandbox): its
// mode, network and variables; the caller adds the workspace, what to
// hide and the environment. A mode that is not one is an error.
func (c Commands) SandboxConfig() (sandbox.Config, error) {
	m, err := sandbox.ParseMode(c.Sandbox)
	if err != nil {
		return sandbox.Config{}, err
	}
	return sandbox.Config{Mode: m, Net: c.SandboxNet, Env: c.Env}, nil
}
