package anthropic

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strconv"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/cachepoint"
	"github.com/nightshift-dev/nightshift/llm/internal/envelope"
	"github.com/nightshift-dev/nightshift/llm/internal/reqbody"
)

// The forms a message or a head is encoded in: without or with a cache
// breakpoint on its last block.
const (
	plain  = 0
	marked = 1
)

// call is one request, ready to send: the parameters the SDK reads itself
// (the model and the cap, for its timeout rule) and the body, built from
// encodings kept by the client's cache (encodeOnce).
type call struct {
	params sdk.MessageNewParams
	body   []byte
	// pooled is body's buffer when it is lent from the client's pool (a
	// call that does not stream; see send).
	pooled *reqbody.Body
}

// request maps a provider-neutral request onto the API's body. A request
// the API could never accept (a tool schema that is not JSON) is a
// BadRequest, found before anything is sent.
//
// Each message is encoded by the SDK's own types, once: the body of a
// later call splices the same bytes (llm/internal/encoded), so a call
// costs the encoding of what is new. With caching on (the default), the
// head and the rolling turns carry cache breakpoints (cachepoint).
func (c *Client) request(req *llm.Request, stream bool) (*call, error) {
	model := cmp.Or(req.Model, c.model)
	maxTokens := int64(cmp.Or(req.MaxTokens, c.maxTokens))
	kept := keptMessages(req.Messages)
	var marks []int
	if !req.NoCache {
		marks = cachepoint.Rolling(kept)
	}
	var system, tools []byte
	var err error
	if req.System != "" {
		form := plain
		if !req.NoCache {
			form = marked
		}
		system, err = c.enc.Parts([]string{req.System}, form, func() ([]byte, error) {
			return json.Marshal([]sdk.TextBlockParam{textParam(req.System, form == marked)})
		})
		if err != nil {
			return nil, err
		}
	}
	if len(req.Tools) > 0 {
		// Without a system prompt the head's breakpoint goes on the
		// last tool.
		form := plain
		if !req.NoCache && req.System == "" {
			form = marked
		}
		tools, err = envelope.Tools(c.enc, Provider, req.Tools, form, func() ([]byte, error) { return encodeTools(req.Tools, form == marked) })
		if err != nil {
			return nil, err
		}
	}
	form := func(i int) int {
		if slices.Contains(marks, i) {
			return marked
		}
		return plain
	}
	// The param's own MarshalJSON: json.Marshal would scan its output
	// once more to check and compact it.
	encode := func(m *llm.Message, form int) ([]byte, error) { return messageParam(*m, form == marked).MarshalJSON() }
	// The body's size, as the previous call of a conversation left it
	// (a pooled buffer), or a guess: appending grows it if need be.
	size := len(system) + len(tools) + len(model) + 96 + 512*len(kept)

	// The envelope is assembled here; everything in it was encoded by
	// the SDK's types. "stream" comes first, where the SDK's own setting
	// of it (NewStreaming sets it on the body) finds it at once.
	// A call that does not stream borrows its body's buffer (reqbody); a
	// streaming one's body is copied by the SDK anyway (it sets
	// "stream" itself).
	b, pooled, prev := envelope.Start(&c.bodies, stream, size, c.enc.LastStamp(kept))
	if stream {
		b = append(b, `{"stream":true,"model":`...)
	} else {
		b = append(b, `{"model":`...)
	}
	b = envelope.AppendString(b, model)
	b = append(b, `,"max_tokens":`...)
	b = strconv.AppendInt(b, maxTokens, 10)
	if system != nil {
		b = append(b, `,"system":`...)
		b = append(b, system...)
	}
	if tools != nil {
		b = append(b, `,"tools":`...)
		b = append(b, tools...)
	}
	b = append(b, `,"messages":[`...)
	b, err = envelope.Messages(c.enc, b, pooled, prev, kept, form, encode)
	if err != nil {
		return nil, err
	}
	b = append(b, "]}"...)
	if pooled != nil {
		pooled.Bytes = b
	}
	return &call{params: sdk.MessageNewParams{Model: model, MaxTokens: maxTokens}, body: b, pooled: pooled}, nil
}

// keptMessages is the conversation as the API takes it. The API refuses
// empty text blocks and messages without content, so both are left out;
// consecutive messages of one role are merged by the API itself. A
// conversation with nothing to leave out (the usual one) is returned as
// it is.
func keptMessages(in []llm.Message) []llm.Message {
	all := true
	for _, m := range in {
		for _, b := range m.Content {
			all = all && sendable(b)
		}
		all = all && len(m.Content) > 0
	}
	if all {
		return in
	}
	out := make([]llm.Message, 0, len(in))
	for _, m := range in {
		n := 0
		for _, b := range m.Content {
			if sendable(b) {
				n++
			}
		}
		switch {
		case n == 0:
			continue
		case n < len(m.Content):
			blocks := make([]llm.Block, 0, n)
			for _, b := range m.Content {
				if sendable(b) {
					blocks = append(blocks, b)
				}
			}
			m.Content = blocks
		}
		out = append(out, m)
	}
	return out
}

// sendable reports whether the API takes b.
func sendable(b llm.Block) bool {
	switch b.Type {
	case llm.TextBlock:
		return b.Text != ""
	case llm.ToolUseBlock, llm.ToolResultBlock:
		return true
	}
	return false
}

// messageParam maps a kept message; mark puts a cache breakpoint on its
// last block.
func messageParam(m llm.Message, mark bool) sdk.MessageParam {
	blocks := make([]sdk.ContentBlockParamUnion, len(m.Content))
	for i, b := range m.Content {
		blocks[i] = blockParam(b, mark && i == len(m.Content)-1)
	}
	role := sdk.MessageParamRoleUser
	if m.Role == llm.Assistant {
		role = sdk.MessageParamRoleAssistant
	}
	return sdk.MessageParam{Role: role, Content: blocks}
}

// breakpoint is the field a marked block carries.
const breakpoint = `,"cache_control":{"type":"ephemeral"}`

// markLast makes a message's marked encoding from its plain one (the
// SDK's, messageParam(m, false)) by adding the breakpoint to its last
// block, as encoded.Cache's Derive: a copy, where encoding the message
// again with the SDK cost a step of a long run about 12 µs. The API reads
// a block's fields in any order. It reports false when the encoding does
// not end as the SDK ends a message (its content, then its role), and the
// SDK encodes the marked form itself.
func markLast(plain []byte, m *llm.Message, form int) ([]byte, bool) {
	if form != marked {
		return nil, false
	}
	end := `],"role":"user"}`
	if m.Role == llm.Assistant {
		end = `],"role":"assistant"}`
	}
	if !bytes.HasSuffix(plain, []byte(end)) {
		return nil, false
	}
	// The last block's closing brace, after at least one field.
	at := len(plain) - len(end) - 1
	if at < 1 || plain[at] != '}' || plain[at-1] == '{' {
		return nil, false
	}
	out := make([]byte, 0, len(plain)+len(breakpoint))
	out = append(out, plain[:at]...)
	out = append(out, breakpoint...)
	return append(out, plain[at:]...), true
}

func textParam(s string, mark bool) sdk.TextBlockParam {
	p := sdk.TextBlockParam{Text: s}
	if mark {
		p.CacheControl = sdk.NewCacheControlEphemeralParam()
	}
	return p
}

func blockParam(b llm.Block, mark bool) sdk.ContentBlockParamUnion {
	var cc sdk.CacheControlEphemeralParam
	if mark {
		cc = sdk.NewCacheControlEphemeralParam()
	}
	switch b.Type {
	case llm.ToolUseBlock:
		return sdk.ContentBlockParamUnion{OfToolUse: &sdk.ToolUseBlockParam{
			ID: b.ID, Name: b.Name, Input: toolInput(b.Input), CacheControl: cc}}
	case llm.ToolResultBlock:
		r := sdk.ToolResultBlockParam{ToolUseID: b.ToolUseID, CacheControl: cc}
		if b.IsError {
			r.IsError = sdk.Bool(true)
		}
		if b.Text != "" {
			r.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: b.Text}}}
		}
		return sdk.ContentBlockParamUnion{OfToolResult: &r}
	}
	t := textParam(b.Text, mark)
	return sdk.ContentBlockParamUnion{OfText: &t}
}

// toolInput returns a tool use's input for sending back in the history.
// The API wants an object; a call cut off by max_tokens may have left
// invalid JSON, which is sent as an empty object so the rest of the
// conversation can still be sent (the tool result tells the model what
// went wrong).
func toolInput(raw json.RawMessage) any {
	if len(raw) == 0 || !json.Valid(raw) {
		return json.RawMessage(`{}`)
	}
	return raw
}

// encodeTools encodes the tool list; mark puts a cache breakpoint on the
// last tool.
func encodeTools(specs []llm.ToolSpec, mark bool) ([]byte, error) {
	tools := make([]sdk.ToolUnionParam, len(specs))
	for i, t := range specs {
		tool, err := toolParam(t)
		if err != nil {
			return nil, err
		}
		if mark && i == len(specs)-1 {
			tool.CacheControl = sdk.NewCacheControlEphemeralParam()
		}
		tools[i] = sdk.ToolUnionParam{OfTool: tool}
	}
	return json.Marshal(tools)
}

// toolParam maps a tool spec. The SDK models input_schema with separate
// properties and required fields; everything else in the schema
// ($defs, additionalProperties, ...) travels as extra fields.
func toolParam(t llm.ToolSpec) (*sdk.ToolParam, error) {
	tool := &sdk.ToolParam{Name: t.Name}
	if t.Description != "" {
		tool.Description = sdk.String(t.Description)
	}
	// The API requires input_schema, and the SDK leaves a zero one out:
	// a tool without parameters gets an empty properties object.
	tool.InputSchema.Properties = map[string]any{}
	if len(t.InputSchema) == 0 {
		return tool, nil
	}
	schema, err := envelope.Schema(t)
	if err != nil {
		return nil, err
	}
	if p, ok := schema["properties"]; ok && p != nil {
		tool.InputSchema.Properties = p
	}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				tool.InputSchema.Required = append(tool.InputSchema.Required, s)
			}
		}
	}
	for k, v := range schema {
		switch k {
		case "type", "properties", "required":
			continue
		}
		if tool.InputSchema.ExtraFields == nil {
			tool.InputSchema.ExtraFields = map[string]any{}
		}
		tool.InputSchema.ExtraFields[k] = v
	}
	return tool, nil
}
