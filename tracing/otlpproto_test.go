package tracing

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// allSpans are spans with everything the SDK's conversion carries: two
// resources with schema URLs, one that is empty and one that is nil, scopes
// with versions, schema URLs and attributes, and a zero scope; attributes
// of every type (slices, nested slices and maps, bytes, an empty value);
// events and links with attributes and dropped counts; every status and
// kind; a remote parent, a local one and none; a trace state; trace
// flags; dropped counts; times before 1970 and zero. Its first three
// spans share a resource and a scope.
func allSpans(bad bool) []sdktrace.ReadOnlySpan {
	ts, err := trace.ParseTraceState("vendor=a,other=b")
	if err != nil {
		panic(err)
	}
	tid := trace.TraceID{0x0a, 0xf7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0xff}
	sc := func(sid byte, flags trace.TraceFlags) trace.SpanContext {
		return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{1, 2, 3, 4, 5, 6, 7, sid}, TraceFlags: flags, TraceState: ts})
	}
	remote := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{9, 9, 9, 9, 9, 9, 9, 0xab}, TraceFlags: 0x05, Remote: true})
	at := time.Unix(1764662400, 123456789)
	attrs := []attribute.KeyValue{
		attribute.String("s", "a <b> & \"c\" \u2028 é"), attribute.String("empty", ""), attribute.Bool("t", true), attribute.Bool("f", false),
		attribute.Int64("big", math.MaxInt64), attribute.Int64("neg", -3), attribute.Int("zero", 0), attribute.Float64("pi", 3.25),
		attribute.Float64("nan", math.NaN()), attribute.Float64("inf", math.Inf(1)), attribute.Float64("-inf", math.Inf(-1)),
		attribute.Float64("e", 1e21), attribute.Float64("zerof", 0), attribute.Float64("negzero", math.Copysign(0, -1)),
		attribute.StringSlice("ss", []string{"x", ""}), attribute.StringSlice("none", []string{}),
		attribute.Int64Slice("is", []int64{-1, 0, 2}), attribute.BoolSlice("bs", []bool{true, false}), attribute.Float64Slice("fs", []float64{0.5, 0}),
		attribute.ByteSlice("bytes", []byte{0, 0xff, 'a'}), attribute.ByteSlice("nobytes", nil),
		attribute.Slice("slice", attribute.BoolValue(true), attribute.ByteSliceValue([]byte("b")), attribute.SliceValue(attribute.IntValue(2), attribute.Value{}),
			attribute.MapValue(attribute.String("in", "v"))),
		attribute.Map("map", attribute.String("k", "v"), attribute.Map("nested", attribute.Bool("ok", true)), attribute.KeyValue{Key: "void"}),
		attribute.Map("nomap"), attribute.Slice("noslice"),
		{Key: "emptyvalue"}, attribute.String("", "no key"),
	}
	if bad {
		attrs = append(attrs, attribute.String("bad", "\xff\xfe"))
	}
	resA := resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0", attribute.String("service.name", "nightshift"), attribute.Int("n", 3), attribute.StringSlice("l", []string{"a"}))
	resB := resource.NewSchemaless(attribute.String("service.name", "other"))
	scope := instrumentation.Scope{Name: Name, Version: "1.0", SchemaURL: SchemaURL, Attributes: attribute.NewSet(attribute.String("k", "v"), attribute.Int("i", 1))}
	stubs := tracetest.SpanStubs{
		{
			Name: "invoke_agent nightshift", SpanContext: sc(1, trace.FlagsSampled), Parent: remote, SpanKind: trace.SpanKindClient,
			StartTime: at, EndTime: at.Add(time.Second), Attributes: attrs,
			Events: []sdktrace.Event{
				{Name: "retry", Time: at.Add(time.Millisecond), Attributes: attrs[:3], DroppedAttributeCount: 2},
				{Time: time.Unix(-5, 0)},
			},
			Links: []sdktrace.Link{
				{SpanContext: remote, Attributes: attrs[4:6], DroppedAttributeCount: 4},
				{SpanContext: sc(2, 0)},
				{},
			},
			Status: sdktrace.Status{Code: codes.Error, Description: "it broke"}, DroppedAttributes: 1, DroppedEvents: 2, DroppedLinks: 3,
			Resource: resA, InstrumentationScope: scope,
		},
		{Name: "chat m", SpanContext: sc(2, trace.FlagsSampled), Parent: sc(1, trace.FlagsSampled), SpanKind: trace.SpanKindServer,
			StartTime: at, EndTime: at.Add(time.Millisecond), Status: sdktrace.Status{Code: codes.Ok}, Resource: resA, InstrumentationScope: scope},
		{Name: "", SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{7}}), SpanKind: trace.SpanKind(42),
			Status: sdktrace.Status{Code: codes.Unset, Description: "unset"}, Resource: resA, InstrumentationScope: scope, DroppedLinks: -1},
		{Name: "producer", SpanContext: sc(3, 0), SpanKind: trace.SpanKindProducer, StartTime: at, Resource: resA, InstrumentationScope: instrumentation.Scope{Name: "x"}},
		{Name: "consumer", SpanContext: sc(4, 0), SpanKind: trace.SpanKindConsumer, Resource: resB},
		{Name: "internal", SpanContext: sc(5, 0), SpanKind: trace.SpanKindInternal, Resource: resB, InstrumentationScope: instrumentation.Scope{Version: "only a version"}},
		{Name: "no resource", SpanContext: sc(6, 0), InstrumentationScope: instrumentation.Scope{SchemaURL: "only/a/schema"}},
		{Name: "empty resource", SpanContext: sc(7, 0), Resource: resource.Empty(), InstrumentationScope: scope},
	}
	return stubs.Snapshots()
}

// reversed is spans in the other order.
func reversed(spans []sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	r := slices.Clone(spans)
	slices.Reverse(r)
	return r
}

// sdkClient is an otlptrace.Client that keeps the SDK's conversion.
type sdkClient struct{ got []*tracepb.ResourceSpans }

func (c *sdkClient) Start(context.Context) error { return nil }
func (c *sdkClient) Stop(context.Context) error  { return nil }
func (c *sdkClient) UploadTraces(_ context.Context, rs []*tracepb.ResourceSpans) error {
	c.got = append(c.got, rs...)
	return nil
}

// sdkTraces is the SDK's conversion of spans to OTLP (otlptrace.New,
// which nightshift used before).
func sdkTraces(t *testing.T, spans []sdktrace.ReadOnlySpan) *tracepb.TracesData {
	t.Helper()
	c := &sdkClient{}
	exp, err := otlptrace.New(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if err := exp.ExportSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	return &tracepb.TracesData{ResourceSpans: c.got}
}

// sortGroups puts a TracesData's resource spans, and each one's scope
// spans, in the order of their encodings (the SDK's come in a map's
// order).
func sortGroups(t *testing.T, td *tracepb.TracesData) {
	t.Helper()
	enc := func(m proto.Message) []byte {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, rs := range td.ResourceSpans {
		slices.SortFunc(rs.ScopeSpans, func(a, b *tracepb.ScopeSpans) int { return bytes.Compare(enc(a), enc(b)) })
	}
	slices.SortFunc(td.ResourceSpans, func(a, b *tracepb.ResourceSpans) int { return bytes.Compare(enc(a), enc(b)) })
}

// TestOTLPProtobufIsTheSDKs: the http/protobuf bodies are what
// proto.Marshal makes of the SDK's conversion of the spans, which
// nightshift sent before it wrote them by hand (issue 23, item 10):
// byte for byte for one resource with one scope; with several, the same
// message once the groups are sorted (the SDK groups through maps).
func TestOTLPProtobufIsTheSDKs(t *testing.T) {
	spans := allSpans(false)
	t.Run("one resource, one scope", func(t *testing.T) {
		ours, err := otlpProto(groupSpans(spans[:3]))
		if err != nil {
			t.Fatal(err)
		}
		sdk, err := proto.Marshal(sdkTraces(t, spans[:3]))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ours, sdk) {
			i := 0
			for i < len(ours) && i < len(sdk) && ours[i] == sdk[i] {
				i++
			}
			t.Fatalf("the bodies differ from byte %d of %d (sdk %d):\n ours: %x\n  sdk: %x", i, len(ours), len(sdk), ours[max(0, i-40):min(len(ours), i+40)], sdk[max(0, i-40):min(len(sdk), i+40)])
		}
	})
	// In both orders: the group of the nil resource and the empty one
	// takes its resource from the span seen first (none, or an empty one).
	for name, spans := range map[string][]sdktrace.ReadOnlySpan{"in order": spans, "reversed": reversed(spans)} {
		t.Run("several resources and scopes, "+name, func(t *testing.T) {
			ours, err := otlpProto(groupSpans(spans))
			if err != nil {
				t.Fatal(err)
			}
			var got tracepb.TracesData
			if err := proto.Unmarshal(ours, &got); err != nil {
				t.Fatal(err)
			}
			want := sdkTraces(t, spans)
			if len(got.ResourceSpans) != 3 {
				t.Errorf("%d resource groups, want 3 (A, B and the empty one)", len(got.ResourceSpans))
			}
			sortGroups(t, &got)
			sortGroups(t, want)
			if !proto.Equal(&got, want) {
				t.Fatalf("the messages differ:\n ours: %v\n  sdk: %v", &got, want)
			}
		})
	}
	t.Run("text that is not UTF-8 is refused, as proto.Marshal refuses it", func(t *testing.T) {
		bad := allSpans(true)
		_, sdkErr := proto.Marshal(sdkTraces(t, bad))
		_, err := otlpProto(groupSpans(bad))
		if sdkErr == nil || err == nil || err.Error() != sdkErr.Error() {
			t.Fatalf("err %v, want the SDK's %v", err, sdkErr)
		}
	})
	t.Run("no spans, no body", func(t *testing.T) {
		if b := groupSpans([]sdktrace.ReadOnlySpan{nil}); len(b) != 0 {
			t.Fatalf("%d groups for a nil span", len(b))
		}
	})
}

// TestPartialSuccessSkipsWhatItDoesNotKnow: a collector's answer is read
// as protowire read it (before the helpers were written by hand): fields
// of every wire type it does not know are skipped, at the top and inside
// partial_success, and an answer cut short reads as none.
func TestPartialSuccessSkipsWhatItDoesNotKnow(t *testing.T) {
	unknown := func(b []byte) []byte {
		b = protowire.AppendTag(b, 7, protowire.VarintType)
		b = protowire.AppendVarint(b, math.MaxUint64)
		b = protowire.AppendTag(b, 8, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, 1)
		b = protowire.AppendTag(b, 9, protowire.Fixed64Type)
		b = protowire.AppendFixed64(b, 1)
		b = protowire.AppendTag(b, 10, protowire.BytesType)
		b = protowire.AppendBytes(b, []byte("xyz"))
		b = protowire.AppendTag(b, 11, protowire.StartGroupType)
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, 5)
		b = protowire.AppendTag(b, 12, protowire.StartGroupType)
		b = protowire.AppendTag(b, 12, protowire.EndGroupType)
		b = protowire.AppendTag(b, 11, protowire.EndGroupType)
		return b
	}
	ps := unknown(nil)
	ps = protowire.AppendTag(ps, 1, protowire.VarintType)
	ps = protowire.AppendVarint(ps, 3)
	ps = protowire.AppendTag(ps, 2, protowire.BytesType)
	ps = protowire.AppendString(ps, "too old")
	ps = unknown(ps)
	body := unknown(nil)
	body = protowire.AppendTag(body, 1, protowire.BytesType)
	body = protowire.AppendBytes(body, ps)
	body = unknown(body)
	if n, msg := partialSuccess(body); n != 3 || msg != "too old" {
		t.Fatalf("partialSuccess = %d, %q; want 3, too old", n, msg)
	}
	for i := range len(body) {
		n, msg := partialSuccess(body[:i])
		// protowire's reading of the same prefix, as partialSuccess did it.
		wantN, wantMsg := protowirePartialSuccess(body[:i])
		if n != wantN || msg != wantMsg {
			t.Fatalf("body cut at %d: %d, %q; protowire's reading %d, %q", i, n, msg, wantN, wantMsg)
		}
	}
	// Bytes of all sorts read as protowire reads them.
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		junk := make([]byte, r.IntN(24))
		for i := range junk {
			junk[i] = byte(r.IntN(256))
		}
		if r.IntN(2) == 0 { // mostly well-formed tags
			junk = append(protowire.AppendTag(nil, protowire.Number(r.IntN(4)), protowire.Type(r.IntN(6))), junk...)
		}
		n, msg := partialSuccess(junk)
		wantN, wantMsg := protowirePartialSuccess(junk)
		if n != wantN || msg != wantMsg {
			t.Fatalf("%x: %d, %q; protowire's reading %d, %q", junk, n, msg, wantN, wantMsg)
		}
	}
	// A group closed by another number is no group.
	bad := protowire.AppendTag(nil, 11, protowire.StartGroupType)
	bad = protowire.AppendTag(bad, 12, protowire.EndGroupType)
	bad = append(bad, body...)
	if n, msg := partialSuccess(bad); n != 0 || msg != "" {
		t.Fatalf("a mismatched group read as %d, %q", n, msg)
	}
}

// protowirePartialSuccess is partialSuccess as it was, over protowire.
func protowirePartialSuccess(b []byte) (rejected int64, msg string) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, ""
		}
		b = b[n:]
		if num == 1 && typ == protowire.BytesType {
			ps, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return 0, ""
			}
			b = b[n:]
			for len(ps) > 0 {
				num, typ, n := protowire.ConsumeTag(ps)
				if n < 0 {
					return 0, ""
				}
				ps = ps[n:]
				switch {
				case num == 1 && typ == protowire.VarintType:
					v, n := protowire.ConsumeVarint(ps)
					if n < 0 {
						return 0, ""
					}
					rejected, ps = int64(v), ps[n:]
				case num == 2 && typ == protowire.BytesType:
					v, n := protowire.ConsumeBytes(ps)
					if n < 0 {
						return 0, ""
					}
					msg, ps = string(v), ps[n:]
				default:
					n := protowire.ConsumeFieldValue(num, typ, ps)
					if n < 0 {
						return 0, ""
					}
					ps = ps[n:]
				}
			}
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return 0, ""
		}
		b = b[n:]
	}
	return rejected, msg
}
