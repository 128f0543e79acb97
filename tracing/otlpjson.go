package tracing

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// otlpJSON encodes an OTLP message in OTLP's JSON form, as the SDK's
// OTLP/HTTP exporter does (its internal otlpjson, which nightshift can no
// longer use: otlphttp.go): fields by their lowerCamelCase names, in the
// order the .proto declares them, those with no value left out; trace
// and span IDs in hex (upper case, as the SDK writes them), other bytes in base64; enums as numbers; 64-bit
// integers as quoted decimals; doubles NaN and ±Infinity as strings.
// Like the SDK's, it always writes a key-value's key and a span's or
// link's IDs, and leaves out a parent span ID of zeros.
// TestOTLPJSONIsTheSDKs holds the two byte for byte.
func otlpJSON(m protoreflect.Message) ([]byte, error) {
	return appendMessage(nil, m)
}

func appendMessage(b []byte, m protoreflect.Message) ([]byte, error) {
	b = append(b, '{')
	first := true
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		name := fd.Name()
		always := name == "key" && m.Descriptor().Name() == "KeyValue" ||
			(name == "trace_id" || name == "span_id") && fd.Kind() == protoreflect.BytesKind
		if !m.Has(fd) && !always {
			continue
		}
		v := m.Get(fd)
		if name == "parent_span_id" && allZero(v.Bytes()) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, fd.JSONName())
		b = append(b, ':')
		var err error
		switch {
		case fd.IsList():
			l := v.List()
			b = append(b, '[')
			for j := range l.Len() {
				if j > 0 {
					b = append(b, ',')
				}
				if b, err = appendValue(b, fd, l.Get(j)); err != nil {
					return nil, err
				}
			}
			b = append(b, ']')
		default:
			if b, err = appendValue(b, fd, v); err != nil {
				return nil, err
			}
		}
	}
	return append(b, '}'), nil
}

func appendValue(b []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) ([]byte, error) {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return appendMessage(b, v.Message())
	case protoreflect.StringKind:
		return appendString(b, v.String()), nil
	case protoreflect.BoolKind:
		return strconv.AppendBool(b, v.Bool()), nil
	case protoreflect.EnumKind:
		return strconv.AppendInt(b, int64(v.Enum()), 10), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(b, v.Uint(), 10), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		b = append(b, '"')
		return append(strconv.AppendInt(b, v.Int(), 10), '"'), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		b = append(b, '"')
		return append(strconv.AppendUint(b, v.Uint(), 10), '"'), nil
	case protoreflect.DoubleKind, protoreflect.FloatKind:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			return append(b, `"NaN"`...), nil
		case math.IsInf(f, 1):
			return append(b, `"Infinity"`...), nil
		case math.IsInf(f, -1):
			return append(b, `"-Infinity"`...), nil
		}
		return strconv.AppendFloat(b, f, 'g', -1, 64), nil
	case protoreflect.BytesKind:
		switch fd.Name() {
		case "trace_id", "span_id", "parent_span_id":
			id := v.Bytes()
			// As the SDK's fixed-size IDs: 16 bytes for a trace, 8 for a span.
			size := 8
			if fd.Name() == "trace_id" {
				size = 16
			}
			fixed := make([]byte, size)
			copy(fixed, id)
			b = append(b, '"')
			for _, c := range fixed {
				b = append(b, upperHex[c>>4], upperHex[c&0xf])
			}
			return append(b, '"'), nil
		}
		b = append(b, '"')
		return append(base64.StdEncoding.AppendEncode(b, v.Bytes()), '"'), nil
	}
	return nil, fmt.Errorf("OTLP JSON: field %s of kind %s", fd.FullName(), fd.Kind())
}

// appendString writes s as encoding/json writes a string.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

const upperHex = "0123456789ABCDEF"
