package tracing

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The OTLP exporter, in place of the SDK's (otlptrace.New). Its span
// conversion builds the generated OTLP types of go.opentelemetry.io/proto
// and its Client takes them, so it linked google.golang.org/protobuf:
// registry inits and descriptors in every process (~2.6 MiB of peak RSS),
// and a reflect.MethodByName that made the linker keep every Get method
// of every type (~6 MB of binary), for tracing that is off unless asked
// for (issue 23, item 10). Here the spans are grouped as the SDK groups
// them and written straight to OTLP's protobuf (otlpproto.go) or JSON
// (otlpjson.go) encoding from the SDK's own span data; the tests hold
// both to the SDK's encodings of its conversion, byte for byte.

// otlpClient sends (or writes) one batch of grouped spans.
type otlpClient interface {
	upload(ctx context.Context, batch []*resourceSpans) error
	// stop lets go of what the client holds (idle connections).
	stop(ctx context.Context) error
}

// exporter is an sdktrace.SpanExporter that hands each batch, grouped,
// to its client; it behaves as the SDK's otlptrace.Exporter.
type exporter struct {
	client   otlpClient
	stopOnce sync.Once
}

var _ sdktrace.SpanExporter = (*exporter)(nil)

// ExportSpans sends one batch. An error says "traces export: ", as the
// SDK's exporter's errors do.
func (e *exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	batch := groupSpans(spans)
	if len(batch) == 0 {
		return nil
	}
	if err := e.client.upload(ctx, batch); err != nil {
		return fmt.Errorf("traces export: %w", err)
	}
	return nil
}

// Shutdown stops the client, once.
func (e *exporter) Shutdown(ctx context.Context) error {
	var err error
	e.stopOnce.Do(func() { err = e.client.stop(ctx) })
	return err
}

// MarshalLog is what the SDK's logging says of the exporter, as of the
// SDK's.
func (e *exporter) MarshalLog() any {
	return struct {
		Type   string
		Client string
	}{Type: "otlptrace", Client: fmt.Sprintf("%T", e.client)}
}

// resourceSpans is OTLP's ResourceSpans: the spans of one resource. Its
// resource and schema URL are those of the first span seen with it.
type resourceSpans struct {
	res    *resource.Resource // nil: the span had none (OTLP's field left out)
	scopes []*scopeSpans
}

// scopeSpans is OTLP's ScopeSpans: the spans of one instrumentation
// scope (its schema URL is the scope's).
type scopeSpans struct {
	scope instrumentation.Scope
	spans []sdktrace.ReadOnlySpan
}

// groupSpans groups spans by resource (equal attributes), then by
// instrumentation scope, as the SDK's conversion does. The SDK's
// resources come in a map's order; these come in the order first seen,
// as do the scopes in each (as the SDK's do).
func groupSpans(spans []sdktrace.ReadOnlySpan) []*resourceSpans {
	type key struct {
		r  attribute.Distinct
		is instrumentation.Scope
	}
	var out []*resourceSpans
	byRes := map[attribute.Distinct]*resourceSpans{}
	byScope := map[key]*scopeSpans{}
	for _, sd := range spans {
		if sd == nil {
			continue
		}
		rk := sd.Resource().Equivalent()
		k := key{r: rk, is: sd.InstrumentationScope()}
		ss := byScope[k]
		if ss == nil {
			ss = &scopeSpans{scope: k.is}
			byScope[k] = ss
			rs := byRes[rk]
			if rs == nil {
				rs = &resourceSpans{res: sd.Resource()}
				byRes[rk] = rs
				out = append(out, rs)
			}
			rs.scopes = append(rs.scopes, ss)
		}
		ss.spans = append(ss.spans, sd)
	}
	return out
}

// The span's values as the SDK's conversion gives them to OTLP.

// unixNano is a time in OTLP's nanoseconds, 0 before 1970.
func unixNano(t time.Time) uint64 {
	return uint64(max(0, t.UnixNano())) //nolint:gosec // not negative
}

// count is a dropped count, clamped to OTLP's uint32.
func count(v int) uint32 {
	return uint32(min(max(0, int64(v)), math.MaxUint32)) //nolint:gosec // clamped
}

// spanKind is OTLP's Span.SpanKind (the same numbers as trace.SpanKind's,
// an unknown one UNSPECIFIED).
func spanKind(k trace.SpanKind) uint64 {
	if k >= trace.SpanKindInternal && k <= trace.SpanKindConsumer {
		return uint64(k)
	}
	return 0
}

// statusCode is OTLP's Status.StatusCode: UNSET 0, OK 1, ERROR 2 (the
// SDK's codes.Ok and codes.Error are the other way round).
func statusCode(c codes.Code) uint64 {
	switch c {
	case codes.Ok:
		return 1
	case codes.Error:
		return 2
	}
	return 0
}

// spanFlags is OTLP's Span.flags and Link.flags: the W3C trace flags,
// the bit that says whether the parent's remoteness is known (always,
// 0x100) and the one that says it is remote (0x200).
func spanFlags(tf trace.TraceFlags, parent trace.SpanContext) uint32 {
	f := uint32(tf) | 0x100
	if parent.IsRemote() {
		f |= 0x200
	}
	return f
}
