package tracing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
)

// Name is the instrumentation scope of nightshift's spans.
const Name = "github.com/nightshift-dev/nightshift"

// Tracer makes nightshift's spans: a run's, its model calls' and tool
// calls', a night's and its steps'. A nil *Tracer makes none. It is safe
// for concurrent use.
type Tracer struct {
	t       trace.Tracer
	content bool
}

// Options tune a Tracer.
type Options struct {
	// Content records what the model is sent and answers (the system
	// prompt, the messages, tool inputs and results, the task) on the
	// spans; default off: traces often go where prompts should not.
	Content bool
}

// New returns a Tracer that makes its spans with tp.
func New(tp trace.TracerProvider, o Options) *Tracer {
	return &Tracer{t: tp.Tracer(Name, trace.WithSchemaURL(SchemaURL)), content: o.Content}
}

// RunInfo describes a run for its span.
type RunInfo struct {
	ID    string
	Task  string
	Model string
	// Provider and JudgeProvider name the worker's and the judge's
	// providers (ProviderOf); empty when unknown.
	Provider      string
	JudgeProvider string
	MaxSteps      int
	// Redact, when set, rewrites every text the run's spans carry (the
	// content, event fields, error messages), as the run's redactor
	// rewrites its events: a key a tool printed must not reach a trace.
	Redact func(string) string
}

// Run is the span of one run, and the agent.Observer of its calls.
type Run struct {
	t    *Tracer
	info RunInfo
	span trace.Span
}

var _ agent.Observer = (*Run)(nil)

// Run starts the span of a run, "invoke_agent nightshift". The calls
// of the run made with the returned context, and the Observer's, are its
// children. A nil Tracer returns ctx and a nil *Run, whose methods do
// nothing.
func (t *Tracer) Run(ctx context.Context, info RunInfo) (context.Context, *Run) {
	if t == nil {
		return ctx, nil
	}
	attrs := []attribute.KeyValue{
		OperationName.String(OpInvokeAgent), AgentName.String("nightshift"),
		RunID.String(info.ID), ConversationID.String(info.ID),
	}
	if info.Provider != "" {
		attrs = append(attrs, ProviderName.String(info.Provider))
	}
	if info.Model != "" {
		attrs = append(attrs, RequestModel.String(info.Model))
	}
	if t.content {
		task := info.Task
		if info.Redact != nil {
			task = info.Redact(task)
		}
		attrs = append(attrs, Task.String(task))
	}
	ctx, span := t.t.Start(ctx, OpInvokeAgent+" nightshift", trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	if info.Redact == nil {
		info.Redact = func(s string) string { return s }
	}
	return ctx, &Run{t: t, info: info, span: span}
}

// End ends the run's span with its outcome and usage; an outcome other
// than done is the span's error.
func (r *Run) End(res *agent.Result) {
	if r == nil {
		return
	}
	attrs := []attribute.KeyValue{Outcome.String(string(res.Outcome)), Steps.Int(res.Steps)}
	r.span.SetAttributes(append(attrs, usage(res.Usage)...)...)
	if res.Outcome != agent.Done {
		r.span.SetStatus(codes.Error, r.info.Redact(fmt.Sprintf("%s: %s", res.Outcome, res.Reason)))
	}
	r.span.End()
}

// Model starts the span of a model call, "chat MODEL".
func (r *Run) Model(ctx context.Context, role string, req *llm.Request) (context.Context, func(*llm.Response, error)) {
	if r == nil {
		return ctx, func(*llm.Response, error) {}
	}
	provider := r.info.Provider
	if role == agent.RoleJudge {
		provider = r.info.JudgeProvider
	}
	attrs := []attribute.KeyValue{OperationName.String(OpChat), Role.String(role), RunID.String(r.info.ID)}
	if provider != "" {
		attrs = append(attrs, ProviderName.String(provider))
	}
	if req.Model != "" {
		attrs = append(attrs, RequestModel.String(req.Model))
	}
	if req.MaxTokens > 0 {
		attrs = append(attrs, RequestMaxTokens.Int(req.MaxTokens))
	}
	if r.t.content {
		red := r.info.Redact
		attrs = append(attrs, SystemInstructions.String(red(systemJSON(req.System))), InputMessages.String(red(messagesJSON(req.Messages))))
	}
	name := OpChat
	if req.Model != "" {
		name += " " + req.Model
	}
	ctx, span := r.t.t.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, func(resp *llm.Response, err error) {
		if err != nil {
			msg := r.info.Redact(err.Error())
			span.SetAttributes(ErrorType.String(errorType(err)))
			span.RecordError(errors.New(msg))
			span.SetStatus(codes.Error, msg)
			span.End()
			return
		}
		attrs := append(usage(resp.Usage), ResponseFinishReasons.StringSlice([]string{string(resp.StopReason)}))
		if resp.Model != "" {
			attrs = append(attrs, ResponseModel.String(resp.Model))
		}
		if r.t.content {
			attrs = append(attrs, OutputMessages.String(r.info.Redact(messagesJSON([]llm.Message{resp.Message()}))))
		}
		span.SetAttributes(attrs...)
		span.End()
	}
}

// Tool starts the span of a tool call, "execute_tool NAME", which holds
// the gate's decision (and a person's wait) as well as the call.
func (r *Run) Tool(ctx context.Context, use llm.Block, class tool.Class) (context.Context, func(tool.Result)) {
	if r == nil {
		return ctx, func(tool.Result) {}
	}
	attrs := []attribute.KeyValue{
		OperationName.String(OpExecuteTool), ToolName.String(use.Name), ToolType.String("function"),
		ToolCallID.String(use.ID), RunID.String(r.info.ID),
	}
	if class != "" {
		attrs = append(attrs, ToolClass.String(string(class)))
	}
	if r.t.content {
		attrs = append(attrs, ToolCallArguments.String(r.info.Redact(string(use.Input))))
	}
	ctx, span := r.t.t.Start(ctx, OpExecuteTool+" "+use.Name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return ctx, func(res tool.Result) {
		if r.t.content {
			span.SetAttributes(ToolCallResult.String(r.info.Redact(res.Content)))
		}
		if res.IsError {
			span.SetAttributes(ErrorType.String("tool_error"))
			span.SetStatus(codes.Error, r.info.Redact(firstLine(res.Content)))
		}
		span.End()
	}
}

// spanEvents are the event types recorded as span events, on the span of
// the call they happened in (a retry on its model or tool call) or on
// the run's. The others are spans or span attributes already.
var spanEvents = map[string]bool{
	event.Retry: true, event.Verify: true, event.Truncated: true, event.Schema: true, event.Rollback: true, event.Journal: true,
}

// Event records e: a retry, a verdict, a cut, a rollback as a span event;
// a tool event's gate decision on its tool call's span.
func (r *Run) Event(ctx context.Context, e event.Event) {
	if r == nil {
		return
	}
	span := trace.SpanFromContext(ctx)
	if !span.SpanContext().IsValid() || !span.IsRecording() {
		span = r.span
	}
	switch {
	case e.Type == event.Tool:
		if d, ok := e.Data["decision"].(string); ok {
			span.SetAttributes(GateDecision.String(d))
		}
		if d, ok := e.Data["decided_by"].(string); ok {
			span.SetAttributes(GateDecider.String(d))
		}
	case spanEvents[e.Type]:
		span.AddEvent(e.Type, trace.WithTimestamp(e.TS), trace.WithAttributes(eventAttrs(e, r.t.content, r.info.Redact)...))
	}
}

// RunEvent records e on the run's own span: the lifecycle's events (the
// rollback) come after the loop's calls have ended.
func (r *Run) RunEvent(e event.Event) {
	if r == nil {
		return
	}
	r.Event(trace.ContextWithSpan(context.Background(), r.span), e)
}

// eventAttrs are an event's fields as attributes, prefixed
// nightshift.<type>.; lists of strings stay lists, other values become
// strings unless they are numbers or booleans.
func eventAttrs(e event.Event, content bool, red func(string) string) []attribute.KeyValue {
	attrs := []attribute.KeyValue{attribute.Int("nightshift.step", e.Step)}
	if e.Detail != "" {
		attrs = append(attrs, attribute.String("nightshift.detail", red(e.Detail)))
	}
	for k, v := range e.Data {
		if k == "task" && !content {
			continue
		}
		key := "nightshift." + e.Type + "." + k
		switch v := v.(type) {
		case string:
			attrs = append(attrs, attribute.String(key, red(v)))
		case int:
			attrs = append(attrs, attribute.Int(key, v))
		case int64:
			attrs = append(attrs, attribute.Int64(key, v))
		case float64:
			attrs = append(attrs, attribute.Float64(key, v))
		case bool:
			attrs = append(attrs, attribute.Bool(key, v))
		case []string:
			out := make([]string, len(v))
			for i, s := range v {
				out[i] = red(s)
			}
			attrs = append(attrs, attribute.StringSlice(key, out))
		default:
			b, _ := json.Marshal(v)
			attrs = append(attrs, attribute.String(key, red(string(b))))
		}
	}
	return attrs
}

// usage is a call's or a run's usage as GenAI attributes.
func usage(u llm.Usage) []attribute.KeyValue {
	attrs := []attribute.KeyValue{UsageInputTokens.Int64(u.InputTokens), UsageOutputTokens.Int64(u.OutputTokens)}
	if read, write := cacheTokens(u); read > 0 || write > 0 {
		attrs = append(attrs, UsageCacheReadTokens.Int64(read), UsageCacheCreateTokens.Int64(write))
	}
	return attrs
}

// errorType is a failed call's error.type: its failure class.
func errorType(err error) string {
	if c := llm.ClassOf(err); c != "" {
		return string(c)
	}
	return "_OTHER"
}

// ProviderOf names a model's provider for gen_ai.provider.name: "anthropic",
// "openai" (which also serves OpenAI-compatible servers), or what a model
// of another kind says with a Provider method; empty when unknown.
func ProviderOf(m llm.Model) string {
	if p, ok := m.(interface{ Provider() string }); ok {
		return p.Provider()
	}
	return ""
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
