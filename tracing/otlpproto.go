package tracing

import (
	"encoding/binary"
	"errors"
	"math"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// OTLP's protobuf encoding, written by hand so that no process links
// google.golang.org/protobuf (otlpexport.go says why). It writes what
// proto.Marshal writes of the SDK's conversion: the fields in the order
// of their numbers, a proto3 scalar, string or bytes only when not zero
// or empty, a message (even an empty one) whenever the SDK's conversion
// sets it, a oneof's value whatever it is. The field numbers are those
// of opentelemetry-proto's trace/v1, common/v1 and resource/v1 (the
// generated go.opentelemetry.io/proto/otlp v1.11.0). TracesData is
// ExportTraceServiceRequest on the wire (both hold the resource spans
// in field 1).

// The wire types.
const (
	wireVarint     = 0
	wireFixed64    = 1
	wireBytes      = 2
	wireStartGroup = 3
	wireEndGroup   = 4
	wireFixed32    = 5
)

// errInvalidUTF8 is proto.Marshal's error (its words) for a string that
// is not UTF-8, which protobuf's proto3 strings must be.
var errInvalidUTF8 = errors.New("string field contains invalid UTF-8")

// otlpProto encodes a batch as a TracesData.
func otlpProto(batch []*resourceSpans) ([]byte, error) {
	e := &pbEncoder{}
	for _, rs := range batch {
		e.message(1, func() { e.resourceSpans(rs) })
	}
	if e.err != nil {
		return nil, e.err
	}
	return e.b, nil
}

// pbEncoder appends fields to b; err is the first string that is not
// UTF-8.
type pbEncoder struct {
	b   []byte
	err error
}

func (e *pbEncoder) tag(num, typ int) {
	e.b = binary.AppendUvarint(e.b, uint64(num)<<3|uint64(typ))
}

// The proto3 scalars, left out when zero.

func (e *pbEncoder) varint(num int, v uint64) {
	if v != 0 {
		e.tag(num, wireVarint)
		e.b = binary.AppendUvarint(e.b, v)
	}
}

func (e *pbEncoder) fixed64(num int, v uint64) {
	if v != 0 {
		e.tag(num, wireFixed64)
		e.b = binary.LittleEndian.AppendUint64(e.b, v)
	}
}

func (e *pbEncoder) fixed32(num int, v uint32) {
	if v != 0 {
		e.tag(num, wireFixed32)
		e.b = binary.LittleEndian.AppendUint32(e.b, v)
	}
}

func (e *pbEncoder) bytes(num int, v []byte) {
	if len(v) > 0 {
		e.tag(num, wireBytes)
		e.b = binary.AppendUvarint(e.b, uint64(len(v)))
		e.b = append(e.b, v...)
	}
}

func (e *pbEncoder) str(num int, s string) {
	if s != "" {
		e.oneofStr(num, s)
	}
}

// oneofStr writes s even when empty, as a oneof's value is.
func (e *pbEncoder) oneofStr(num int, s string) {
	if e.err == nil && !utf8.ValidString(s) {
		e.err = errInvalidUTF8
	}
	e.tag(num, wireBytes)
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
}

// message writes field num holding the message fields writes, then
// moves it right to make room for its length, which is known only then.
func (e *pbEncoder) message(num int, fields func()) {
	e.tag(num, wireBytes)
	start := len(e.b)
	fields()
	n := len(e.b) - start
	var lb [binary.MaxVarintLen64]byte
	l := binary.PutUvarint(lb[:], uint64(n))
	e.b = append(e.b, lb[:l]...)
	copy(e.b[start+l:], e.b[start:start+n])
	copy(e.b[start:], lb[:l])
}

// resourceSpans is ResourceSpans: resource 1, scope_spans 2, schema_url 3.
func (e *pbEncoder) resourceSpans(rs *resourceSpans) {
	if rs.res != nil {
		// Resource: attributes 1.
		e.message(1, func() { e.keyValues(1, rs.res.Set().ToSlice()) })
	}
	for _, ss := range rs.scopes {
		e.message(2, func() { e.scopeSpans(ss) })
	}
	e.str(3, rs.res.SchemaURL())
}

// scopeSpans is ScopeSpans: scope 1, spans 2, schema_url 3.
func (e *pbEncoder) scopeSpans(ss *scopeSpans) {
	if s := ss.scope; s != (instrumentation.Scope{}) {
		// InstrumentationScope: name 1, version 2, attributes 3.
		e.message(1, func() {
			e.str(1, s.Name)
			e.str(2, s.Version)
			e.keyValues(3, s.Attributes.ToSlice())
		})
	}
	for _, sd := range ss.spans {
		e.message(2, func() { e.span(sd) })
	}
	e.str(3, ss.scope.SchemaURL)
}

// span is Span: trace_id 1, span_id 2, trace_state 3, parent_span_id 4,
// name 5, kind 6, start_time_unix_nano 7, end_time_unix_nano 8,
// attributes 9, dropped_attributes_count 10, events 11,
// dropped_events_count 12, links 13, dropped_links_count 14, status 15,
// flags 16.
func (e *pbEncoder) span(sd sdktrace.ReadOnlySpan) {
	sc := sd.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	e.bytes(1, tid[:])
	e.bytes(2, sid[:])
	e.str(3, sc.TraceState().String())
	parent := sd.Parent()
	if psid := parent.SpanID(); psid.IsValid() {
		e.bytes(4, psid[:])
	}
	e.str(5, sd.Name())
	e.varint(6, spanKind(sd.SpanKind()))
	e.fixed64(7, unixNano(sd.StartTime()))
	e.fixed64(8, unixNano(sd.EndTime()))
	e.keyValues(9, sd.Attributes())
	e.varint(10, uint64(count(sd.DroppedAttributes())))
	for _, ev := range sd.Events() {
		// Span.Event: time_unix_nano 1, name 2, attributes 3,
		// dropped_attributes_count 4.
		e.message(11, func() {
			e.fixed64(1, unixNano(ev.Time))
			e.str(2, ev.Name)
			e.keyValues(3, ev.Attributes)
			e.varint(4, uint64(count(ev.DroppedAttributeCount)))
		})
	}
	e.varint(12, uint64(count(sd.DroppedEvents())))
	for _, l := range sd.Links() {
		// Span.Link: trace_id 1, span_id 2, (trace_state 3, which the
		// SDK's conversion leaves out), attributes 4,
		// dropped_attributes_count 5, flags 6.
		e.message(13, func() {
			tid, sid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			e.bytes(1, tid[:])
			e.bytes(2, sid[:])
			e.keyValues(4, l.Attributes)
			e.varint(5, uint64(count(l.DroppedAttributeCount)))
			e.fixed32(6, spanFlags(l.SpanContext.TraceFlags(), l.SpanContext))
		})
	}
	e.varint(14, uint64(count(sd.DroppedLinks())))
	// Status: message 2, code 3; always there, as the SDK sets it.
	st := sd.Status()
	e.message(15, func() {
		e.str(2, st.Description)
		e.varint(3, statusCode(st.Code))
	})
	e.fixed32(16, spanFlags(sc.TraceFlags(), parent))
}

// keyValues writes each attribute as a KeyValue in field num: key 1,
// value 2 (an AnyValue, always there).
func (e *pbEncoder) keyValues(num int, kvs []attribute.KeyValue) {
	for _, kv := range kvs {
		e.message(num, func() {
			e.str(1, string(kv.Key))
			e.message(2, func() { e.anyValue(kv.Value) })
		})
	}
}

// anyValue writes an AnyValue's oneof: string_value 1, bool_value 2,
// int_value 3, double_value 4, array_value 5 (ArrayValue: values 1),
// kvlist_value 6 (KeyValueList: values 1), bytes_value 7; none for an
// empty value, "INVALID" for a type it does not know, as the SDK's
// conversion does.
func (e *pbEncoder) anyValue(v attribute.Value) {
	switch v.Type() {
	case attribute.BOOL:
		e.oneofBool(v.AsBool())
	case attribute.INT64:
		e.oneofInt(v.AsInt64())
	case attribute.FLOAT64:
		e.oneofDouble(v.AsFloat64())
	case attribute.STRING:
		e.oneofStr(1, v.AsString())
	case attribute.BYTESLICE:
		b := v.AsByteSlice()
		e.tag(7, wireBytes)
		e.b = binary.AppendUvarint(e.b, uint64(len(b)))
		e.b = append(e.b, b...)
	case attribute.BOOLSLICE:
		e.message(5, func() {
			for _, x := range v.AsBoolSlice() {
				e.message(1, func() { e.oneofBool(x) })
			}
		})
	case attribute.INT64SLICE:
		e.message(5, func() {
			for _, x := range v.AsInt64Slice() {
				e.message(1, func() { e.oneofInt(x) })
			}
		})
	case attribute.FLOAT64SLICE:
		e.message(5, func() {
			for _, x := range v.AsFloat64Slice() {
				e.message(1, func() { e.oneofDouble(x) })
			}
		})
	case attribute.STRINGSLICE:
		e.message(5, func() {
			for _, x := range v.AsStringSlice() {
				e.message(1, func() { e.oneofStr(1, x) })
			}
		})
	case attribute.SLICE:
		e.message(5, func() {
			for _, x := range v.AsSlice() {
				e.message(1, func() { e.anyValue(x) })
			}
		})
	case attribute.MAP:
		e.message(6, func() { e.keyValues(1, v.AsMap()) })
	case attribute.EMPTY:
	default:
		e.oneofStr(1, "INVALID")
	}
}

func (e *pbEncoder) oneofBool(x bool) {
	e.tag(2, wireVarint)
	if x {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

func (e *pbEncoder) oneofInt(x int64) {
	e.tag(3, wireVarint)
	e.b = binary.AppendUvarint(e.b, uint64(x)) //nolint:gosec // protobuf's int64: two's complement
}

func (e *pbEncoder) oneofDouble(x float64) {
	e.tag(4, wireFixed64)
	e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(x))
}

// Reading protobuf: only a collector's answer (partialSuccess).

// consumeTag reads a field's tag: its number and wire type, and the
// length read (n < 0: none).
func consumeTag(b []byte) (num, typ, n int) {
	v, n := binary.Uvarint(b)
	if n <= 0 || v>>3 > math.MaxInt32 || v>>3 < 1 {
		return 0, 0, -1
	}
	return int(v >> 3), int(v & 7), n
}

// consumeBytes reads a length-delimited value (n < 0: none).
func consumeBytes(b []byte) (v []byte, n int) {
	l, n := binary.Uvarint(b)
	if n <= 0 || l > uint64(len(b)-n) {
		return nil, -1
	}
	return b[n : n+int(l)], n + int(l)
}

// consumeVarint reads a varint (n < 0: none).
func consumeVarint(b []byte) (v uint64, n int) {
	v, n = binary.Uvarint(b)
	if n <= 0 {
		return 0, -1
	}
	return v, n
}

// skipField is the length of the value of a field of that number and
// wire type at b's start (n < 0: none), a group's to its end.
func skipField(num, typ int, b []byte, depth int) int {
	switch typ {
	case wireVarint:
		_, n := consumeVarint(b)
		return n
	case wireFixed32:
		if len(b) < 4 {
			return -1
		}
		return 4
	case wireFixed64:
		if len(b) < 8 {
			return -1
		}
		return 8
	case wireBytes:
		_, n := consumeBytes(b)
		return n
	case wireStartGroup:
		if depth <= 0 {
			return -1
		}
		for i := 0; ; {
			n, t, l := consumeTag(b[i:])
			if l < 0 {
				return -1
			}
			i += l
			if t == wireEndGroup {
				if n != num {
					return -1
				}
				return i
			}
			l = skipField(n, t, b[i:], depth-1)
			if l < 0 {
				return -1
			}
			i += l
		}
	}
	return -1
}
