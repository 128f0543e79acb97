// Package envelope holds the steps of building a request body that the
// providers (llm/anthropic, llm/openai) take the same way: encoding the
// tool list once through the client's cache, starting the body's buffer
// (lent from the pool or not), the model's name as a JSON string, and a
// tool's input schema read as a JSON object. It lives under llm/internal
// because it is the providers' shared wire code and nothing else's; what
// each API's envelope holds (its field names, its order) stays in the
// provider's own request.go.
package envelope

import (
	"encoding/json"
	"fmt"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/encoded"
	"github.com/nightshift-dev/nightshift/llm/internal/reqbody"
)

// Tools returns the encoding of tools in form, made by encode the first
// time and kept by enc after: the cache knows a tool list by each tool's
// name, description and schema. A list encode cannot encode (a schema that
// is not JSON) is a BadRequest of provider, found before anything is sent.
func Tools(enc *encoded.Cache, provider string, tools []llm.ToolSpec, form int, encode func() ([]byte, error)) ([]byte, error) {
	parts := make([]string, 0, 3*len(tools))
	for _, t := range tools {
		parts = append(parts, t.Name, t.Description, string(t.InputSchema))
	}
	b, err := enc.Parts(parts, form, encode)
	if err != nil {
		return nil, &llm.Error{Provider: provider, Class: llm.BadRequest, Message: err.Error(), Err: err}
	}
	return b, nil
}

// Start returns the empty buffer a body is appended to, with room for
// size bytes. A call that does not stream borrows it from bodies and gets
// the loan back as pooled (set pooled.Bytes and pooled.Stamp to the
// finished body's); when last (the conversation's encoded.LastStamp) is
// the stamp of the body released last, it is that body, whose stamp is
// prev, for encoded.Cache.AppendTo; else prev is 0. A streaming call's
// body is copied by the SDK anyway (it sets "stream" itself), so it gets
// a buffer of its own and pooled is nil.
func Start(bodies *reqbody.Pool, stream bool, size int, last uint64) (b []byte, pooled *reqbody.Body, prev uint64) {
	if stream {
		return make([]byte, 0, size), nil, 0
	}
	if pooled = bodies.Last(last); pooled != nil {
		return pooled.Bytes[:0], pooled, last
	}
	pooled = bodies.Get(size)
	return pooled.Bytes, pooled, 0
}

// Messages appends a conversation's messages to a body's head (b) through
// enc, sep between them: over the conversation's last body when pooled is
// the body Start returned with prev (encoded.Cache.AppendTo), stamping
// pooled with the new body; with Append when the call streams.
func Messages(enc *encoded.Cache, b []byte, pooled *reqbody.Body, prev uint64, msgs []llm.Message, form func(int) int, encode func(*llm.Message, int) ([]byte, error)) ([]byte, error) {
	if pooled == nil {
		return enc.Append(b, ',', msgs, form, encode)
	}
	b, stamp, err := enc.AppendTo(b, prev, ',', msgs, form, encode)
	pooled.Stamp = stamp
	return b, err
}

// AppendString appends s as a JSON string.
func AppendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}

// Schema reads t's input schema as a JSON object; an empty schema is nil.
func Schema(t llm.ToolSpec) (map[string]any, error) {
	if len(t.InputSchema) == 0 {
		return nil, nil
	}
	var schema map[string]any
	if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
		return nil, fmt.Errorf("tool %q: input schema is not a JSON object: %w", t.Name, err)
	}
	return schema, nil
}
