package tracing

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// otlpJSON encodes a batch as a TracesData in OTLP's JSON form, as the
// SDK's OTLP/HTTP exporter encodes its conversion of the spans (its
// internal otlpjson, over the generated types nightshift no longer
// links: otlpexport.go): fields by their lowerCamelCase names, in the
// order the .proto declares them (a Span's flags after its
// parentSpanId), those with no value left out as protobuf leaves them
// out (otlpproto.go); trace and span IDs in hex (upper case, as the SDK
// writes them), other bytes in base64; enums as numbers; 64-bit
// integers as quoted decimals; doubles NaN and ±Infinity as strings.
// Like the SDK's, it always writes a key-value's key and a span's or
// link's IDs. Text that is not UTF-8 is written as encoding/json writes
// it (U+FFFD), where protobuf would refuse it. TestOTLPJSONIsTheSDKs
// holds the two byte for byte.
func otlpJSON(batch []*resourceSpans) []byte {
	o := jsonObject{b: []byte{'{'}}
	if len(batch) > 0 {
		o.key("resourceSpans")
		o.b = appendList(o.b, batch, appendResourceSpans)
	}
	return o.end()
}

// jsonObject writes an object's members.
type jsonObject struct {
	b    []byte
	some bool
}

// key writes a member's name (after a comma if it is not the first).
func (o *jsonObject) key(name string) {
	if o.some {
		o.b = append(o.b, ',')
	}
	o.some = true
	o.b = append(o.b, '"')
	o.b = append(o.b, name...)
	o.b = append(o.b, '"', ':')
}

func (o *jsonObject) end() []byte { return append(o.b, '}') }

// The proto3 scalars, left out when zero.

func (o *jsonObject) str(name, s string) {
	if s != "" {
		o.key(name)
		o.b = appendString(o.b, s)
	}
}

func (o *jsonObject) uint32(name string, v uint32) {
	if v != 0 {
		o.key(name)
		o.b = strconv.AppendUint(o.b, uint64(v), 10)
	}
}

// uint64 is quoted, as OTLP's JSON writes 64-bit integers.
func (o *jsonObject) uint64(name string, v uint64) {
	if v != 0 {
		o.key(name)
		o.b = append(o.b, '"')
		o.b = strconv.AppendUint(o.b, v, 10)
		o.b = append(o.b, '"')
	}
}

// id writes a trace or span ID in upper-case hex, always.
func (o *jsonObject) id(name string, id []byte) {
	o.key(name)
	o.b = append(o.b, '"')
	for _, c := range id {
		o.b = append(o.b, upperHex[c>>4], upperHex[c&0xf])
	}
	o.b = append(o.b, '"')
}

// keyValues writes a list of KeyValues, left out when empty.
func (o *jsonObject) keyValues(name string, kvs []attribute.KeyValue) {
	if len(kvs) == 0 {
		return
	}
	o.key(name)
	o.b = appendKeyValues(o.b, kvs)
}

func appendResourceSpans(b []byte, rs *resourceSpans) []byte {
	o := jsonObject{b: append(b, '{')}
	if rs.res != nil {
		o.key("resource")
		r := jsonObject{b: append(o.b, '{')}
		r.keyValues("attributes", rs.res.Set().ToSlice())
		o.b = r.end()
	}
	o.key("scopeSpans")
	o.b = appendList(o.b, rs.scopes, appendScopeSpans)
	o.str("schemaUrl", rs.res.SchemaURL())
	return o.end()
}

func appendScopeSpans(b []byte, ss *scopeSpans) []byte {
	o := jsonObject{b: append(b, '{')}
	if s := ss.scope; s != (instrumentation.Scope{}) {
		o.key("scope")
		sc := jsonObject{b: append(o.b, '{')}
		sc.str("name", s.Name)
		sc.str("version", s.Version)
		sc.keyValues("attributes", s.Attributes.ToSlice())
		o.b = sc.end()
	}
	o.key("spans")
	o.b = appendList(o.b, ss.spans, appendSpan)
	o.str("schemaUrl", ss.scope.SchemaURL)
	return o.end()
}

func appendSpan(b []byte, sd sdktrace.ReadOnlySpan) []byte {
	o := jsonObject{b: append(b, '{')}
	sc := sd.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	o.id("traceId", tid[:])
	o.id("spanId", sid[:])
	o.str("traceState", sc.TraceState().String())
	parent := sd.Parent()
	if psid := parent.SpanID(); psid.IsValid() {
		o.id("parentSpanId", psid[:])
	}
	o.uint32("flags", spanFlags(sc.TraceFlags(), parent))
	o.str("name", sd.Name())
	if k := spanKind(sd.SpanKind()); k != 0 {
		o.key("kind")
		o.b = strconv.AppendUint(o.b, k, 10)
	}
	o.uint64("startTimeUnixNano", unixNano(sd.StartTime()))
	o.uint64("endTimeUnixNano", unixNano(sd.EndTime()))
	o.keyValues("attributes", sd.Attributes())
	o.uint32("droppedAttributesCount", count(sd.DroppedAttributes()))
	if evs := sd.Events(); len(evs) > 0 {
		o.key("events")
		o.b = appendList(o.b, evs, func(b []byte, ev sdktrace.Event) []byte {
			e := jsonObject{b: append(b, '{')}
			e.uint64("timeUnixNano", unixNano(ev.Time))
			e.str("name", ev.Name)
			e.keyValues("attributes", ev.Attributes)
			e.uint32("droppedAttributesCount", count(ev.DroppedAttributeCount))
			return e.end()
		})
	}
	o.uint32("droppedEventsCount", count(sd.DroppedEvents()))
	if links := sd.Links(); len(links) > 0 {
		o.key("links")
		o.b = appendList(o.b, links, func(b []byte, l sdktrace.Link) []byte {
			lo := jsonObject{b: append(b, '{')}
			tid, sid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			lo.id("traceId", tid[:])
			lo.id("spanId", sid[:])
			lo.keyValues("attributes", l.Attributes)
			lo.uint32("droppedAttributesCount", count(l.DroppedAttributeCount))
			lo.uint32("flags", spanFlags(l.SpanContext.TraceFlags(), l.SpanContext))
			return lo.end()
		})
	}
	o.uint32("droppedLinksCount", count(sd.DroppedLinks()))
	o.key("status")
	st := sd.Status()
	so := jsonObject{b: append(o.b, '{')}
	so.str("message", st.Description)
	if c := statusCode(st.Code); c != 0 {
		so.key("code")
		so.b = strconv.AppendUint(so.b, c, 10)
	}
	o.b = so.end()
	return o.end()
}

// appendKeyValues writes a list of KeyValues: the key always, the value
// (an AnyValue) always.
func appendKeyValues(b []byte, kvs []attribute.KeyValue) []byte {
	return appendList(b, kvs, func(b []byte, kv attribute.KeyValue) []byte {
		b = append(b, `{"key":`...)
		b = appendString(b, string(kv.Key))
		b = append(b, `,"value":`...)
		b = appendAnyValue(b, kv.Value)
		return append(b, '}')
	})
}

// appendList writes a JSON list, each element written by each.
func appendList[T any](b []byte, xs []T, each func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = each(b, x)
	}
	return append(b, ']')
}

// appendAnyValue writes an AnyValue: its oneof's one member, whatever
// its value (but empty bytes); {} for an empty value.
func appendAnyValue(b []byte, v attribute.Value) []byte {
	return append(appendValueMember(append(b, '{'), v), '}')
}

// appendValueMember writes the member of an AnyValue that holds v.
func appendValueMember(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.BOOL:
		b = appendBool(b, v.AsBool())
	case attribute.INT64:
		b = appendInt(b, v.AsInt64())
	case attribute.FLOAT64:
		b = appendDouble(b, v.AsFloat64())
	case attribute.STRING:
		b = appendStringValue(b, v.AsString())
	case attribute.BYTESLICE:
		// Left out when empty, as the SDK's JSON leaves it out
		// (protobuf writes it).
		if bs := v.AsByteSlice(); len(bs) > 0 {
			b = append(b, `"bytesValue":"`...)
			b = base64.StdEncoding.AppendEncode(b, bs)
			b = append(b, '"')
		}
	case attribute.BOOLSLICE:
		b = appendArray(b, v.AsBoolSlice(), appendBool)
	case attribute.INT64SLICE:
		b = appendArray(b, v.AsInt64Slice(), appendInt)
	case attribute.FLOAT64SLICE:
		b = appendArray(b, v.AsFloat64Slice(), appendDouble)
	case attribute.STRINGSLICE:
		b = appendArray(b, v.AsStringSlice(), appendStringValue)
	case attribute.SLICE:
		b = appendArray(b, v.AsSlice(), appendValueMember)
	case attribute.MAP:
		b = append(b, `"kvlistValue":{`...)
		if kvs := v.AsMap(); len(kvs) > 0 {
			b = append(b, `"values":`...)
			b = appendKeyValues(b, kvs)
		}
		b = append(b, '}')
	case attribute.EMPTY:
	default:
		b = appendStringValue(b, "INVALID")
	}
	return b
}

// appendArray writes an arrayValue member: an ArrayValue of AnyValues,
// each one's member written by member.
func appendArray[T any](b []byte, xs []T, member func([]byte, T) []byte) []byte {
	b = append(b, `"arrayValue":{`...)
	if len(xs) > 0 {
		b = append(b, `"values":`...)
		b = appendList(b, xs, func(b []byte, x T) []byte { return append(member(append(b, '{'), x), '}') })
	}
	return append(b, '}')
}

func appendBool(b []byte, x bool) []byte {
	return strconv.AppendBool(append(b, `"boolValue":`...), x)
}

func appendStringValue(b []byte, s string) []byte {
	return appendString(append(b, `"stringValue":`...), s)
}

func appendInt(b []byte, x int64) []byte {
	b = append(b, `"intValue":"`...)
	return append(strconv.AppendInt(b, x, 10), '"')
}

func appendDouble(b []byte, f float64) []byte {
	b = append(b, `"doubleValue":`...)
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// appendString writes s as encoding/json writes a string.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}

const upperHex = "0123456789ABCDEF"
