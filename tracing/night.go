package tracing

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Night is the span of a night, "nightshift night NAME".
type Night struct {
	t    *Tracer
	id   int64
	span trace.Span
}

// Night starts the span of a night. A nil Tracer returns a nil *Night,
// whose methods do nothing.
func (t *Tracer) Night(ctx context.Context, id int64, name string) (context.Context, *Night) {
	if t == nil {
		return ctx, nil
	}
	ctx, span := t.t.Start(ctx, "nightshift night "+name, trace.WithAttributes(NightID.Int64(id), NightName.String(name)))
	return ctx, &Night{t: t, id: id, span: span}
}

// End ends the night's span with how it ended; an early end is its error.
func (n *Night) End(kind, reason string, early bool) {
	if n == nil {
		return
	}
	n.span.SetAttributes(attribute.String("nightshift.night.end", kind), attribute.String("nightshift.night.reason", reason))
	if early {
		n.span.SetStatus(codes.Error, kind+": "+reason)
	}
	n.span.End()
}

// StepInfo describes a step of the night for its span.
type StepInfo struct {
	ID     int64
	Role   string
	Worker string
	Task   int64
}

// Step starts a step's span, "nightshift step ROLE", as the root of a
// trace of its own linked to the night's span: a night lasts hours and
// its steps may run in other processes (River works them), so a step is
// a trace of its own that names its night (nightshift.night.id) and
// links to it. A builder step's run is its child. end records the step's
// state and outcome; a failed step is the span's error.
func (n *Night) Step(ctx context.Context, s StepInfo) (context.Context, func(state, outcome string, failed bool)) {
	if n == nil {
		return ctx, func(string, string, bool) {}
	}
	attrs := []attribute.KeyValue{NightID.Int64(n.id), StepID.Int64(s.ID), Role.String(s.Role), Worker.String(s.Worker)}
	if s.Task != 0 {
		attrs = append(attrs, TaskID.Int64(s.Task))
	}
	ctx, span := n.t.t.Start(ctx, "nightshift step "+s.Role, trace.WithNewRoot(),
		trace.WithLinks(trace.Link{SpanContext: n.span.SpanContext(), Attributes: []attribute.KeyValue{attribute.String("nightshift.link", "night")}}),
		trace.WithAttributes(attrs...))
	return ctx, func(state, outcome string, failed bool) {
		span.SetAttributes(attribute.String("nightshift.step.state", state), Outcome.String(outcome))
		if failed {
			span.SetStatus(codes.Error, state+" "+outcome)
		}
		span.End()
	}
}
