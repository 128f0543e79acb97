package tracing

import "go.opentelemetry.io/otel/attribute"

// SemConvVersion is the version of the OpenTelemetry semantic
// conventions whose GenAI attributes the spans carry: v1.40.0 (GenAI
// still "Development" there). The Go semconv packages dropped their GenAI
// constants after v1.41.0, so the keys are defined here, in this one
// file, rather than pinning an old package.
const SemConvVersion = "1.40.0"

// SchemaURL is the schema of SemConvVersion, set on nightshift's tracer.
const SchemaURL = "https://opentelemetry.io/schemas/" + SemConvVersion

// GenAI attribute keys (semantic conventions v1.40.0, gen-ai spans).
const (
	OperationName          = attribute.Key("gen_ai.operation.name")
	ProviderName           = attribute.Key("gen_ai.provider.name")
	RequestModel           = attribute.Key("gen_ai.request.model")
	RequestMaxTokens       = attribute.Key("gen_ai.request.max_tokens")
	ResponseModel          = attribute.Key("gen_ai.response.model")
	ResponseFinishReasons  = attribute.Key("gen_ai.response.finish_reasons")
	UsageInputTokens       = attribute.Key("gen_ai.usage.input_tokens")
	UsageOutputTokens      = attribute.Key("gen_ai.usage.output_tokens")
	UsageCacheReadTokens   = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	UsageCacheCreateTokens = attribute.Key("gen_ai.usage.cache_creation.input_tokens")
	AgentName              = attribute.Key("gen_ai.agent.name")
	ConversationID         = attribute.Key("gen_ai.conversation.id")
	ToolName               = attribute.Key("gen_ai.tool.name")
	ToolType               = attribute.Key("gen_ai.tool.type")
	ToolCallID             = attribute.Key("gen_ai.tool.call.id")
	ToolCallArguments      = attribute.Key("gen_ai.tool.call.arguments")
	ToolCallResult         = attribute.Key("gen_ai.tool.call.result")
	InputMessages          = attribute.Key("gen_ai.input.messages")
	OutputMessages         = attribute.Key("gen_ai.output.messages")
	SystemInstructions     = attribute.Key("gen_ai.system_instructions")
	// ErrorType is the general convention's error.type.
	ErrorType = attribute.Key("error.type")
)

// GenAI operation names (gen_ai.operation.name).
const (
	OpChat        = "chat"
	OpExecuteTool = "execute_tool"
	OpInvokeAgent = "invoke_agent"
)

// nightshift's own attributes, beside the conventions'.
const (
	RunID        = attribute.Key("nightshift.run.id")
	Outcome      = attribute.Key("nightshift.outcome")
	Steps        = attribute.Key("nightshift.steps")
	Role         = attribute.Key("nightshift.role")
	ToolClass    = attribute.Key("nightshift.tool.class")
	GateDecision = attribute.Key("nightshift.gate.decision")
	GateDecider  = attribute.Key("nightshift.gate.decided_by")
	Task         = attribute.Key("nightshift.task")
	NightID      = attribute.Key("nightshift.night.id")
	NightName    = attribute.Key("nightshift.night.name")
	StepID       = attribute.Key("nightshift.step.id")
	TaskID       = attribute.Key("nightshift.task.id")
	Worker       = attribute.Key("nightshift.worker")
)
