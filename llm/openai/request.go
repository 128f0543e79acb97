package openai

import (
	"cmp"
	"encoding/json"
	"strconv"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/envelope"
	"github.com/nightshift-dev/nightshift/llm/internal/reqbody"
)

// errorPrefix marks a failed tool's result. Chat Completions has no
// is_error field on tool messages, so the failure is said in the content,
// where the model reads it.
const errorPrefix = "ERROR: "

// call is one request, ready to send: the parameters the SDK reads itself
// (the model) and the body, built from encodings kept by the client's
// cache.
type call struct {
	params sdk.ChatCompletionNewParams
	body   []byte
	// pooled is body's buffer when it is lent from the client's pool (a
	// call that does not stream).
	pooled *reqbody.Body
}

// request maps a provider-neutral request onto the API's body. A request
// the API could never accept (a tool schema that is not JSON) is a
// BadRequest, found before anything is sent.
//
// Each message is encoded by the SDK's own types, once: the body of a
// later call splices the same bytes (llm/internal/encoded), so a call
// costs the encoding of what is new. The same bytes also keep the prompt's
// prefix byte-stable from call to call (the tools, the system prompt,
// then the conversation in order), which is all OpenAI's automatic prompt
// caching needs: it caches every prompt of 1,024 tokens or more by prefix.
// NoCache cannot turn that off and changes nothing here.
func (c *Client) request(req *llm.Request, stream bool) (*call, error) {
	model := cmp.Or(req.Model, c.model)
	limit := int64(cmp.Or(req.MaxTokens, c.maxTokens))
	var tools []byte
	if len(req.Tools) > 0 {
		var err error
		tools, err = envelope.Tools(c.enc, Provider, req.Tools, 0, func() ([]byte, error) { return encodeTools(req.Tools) })
		if err != nil {
			return nil, err
		}
	}
	size := len(tools) + len(model) + 128
	var sys []byte
	if req.System != "" {
		var err error
		sys, err = c.enc.Parts([]string{req.System}, 1, func() ([]byte, error) { return json.Marshal(sdk.SystemMessage(req.System)) })
		if err != nil {
			return nil, err
		}
		size += len(sys) + 1
	}
	size += 512 * len(req.Messages) // a guess: appending grows the body if need be
	encode := func(m *llm.Message, _ int) ([]byte, error) { return encodeMessages(messages(*m)) }

	// The envelope is assembled here; everything in it was encoded by
	// the SDK's types. "stream" comes first, where the SDK's own setting
	// of it (NewStreaming sets it on the body) finds it at once.
	// A call that does not stream borrows its body's buffer (reqbody); a
	// streaming one's body is copied by the SDK anyway (it sets
	// "stream" itself).
	b, pooled, prev := envelope.Start(&c.bodies, stream, size, c.enc.LastStamp(req.Messages))
	if stream {
		b = append(b, `{"stream":true,"stream_options":{"include_usage":true},"model":`...)
	} else {
		b = append(b, `{"model":`...)
	}
	b = envelope.AppendString(b, model)
	if c.maxCompletionTokens {
		b = append(b, `,"max_completion_tokens":`...)
	} else {
		b = append(b, `,"max_tokens":`...)
	}
	b = strconv.AppendInt(b, limit, 10)
	if tools != nil {
		b = append(b, `,"tools":`...)
		b = append(b, tools...)
	}
	b = append(b, `,"messages":[`...)
	if sys != nil {
		b = append(b, sys...)
		b = append(b, ',')
	}
	mark := len(b)
	var err error
	if b, err = envelope.Messages(c.enc, b, pooled, prev, req.Messages, func(int) int { return 0 }, encode); err != nil {
		return nil, err
	}
	if sys != nil && len(b) == mark {
		b = b[:mark-1] // no message after the system prompt: no comma
	}
	b = append(b, "]}"...)
	if pooled != nil {
		pooled.Bytes = b
	}
	return &call{params: sdk.ChatCompletionNewParams{Model: model}, body: b, pooled: pooled}, nil
}

// encodeMessages encodes the API messages one llm message maps onto,
// comma-separated: a piece of the messages array. None encodes as empty.
func encodeMessages(ms []sdk.ChatCompletionMessageParamUnion) ([]byte, error) {
	var b []byte
	for i, m := range ms {
		// The param's own MarshalJSON: json.Marshal would scan its
		// output once more to check and compact it.
		enc, err := m.MarshalJSON()
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, enc...)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// encodeTools encodes the tool list.
func encodeTools(specs []llm.ToolSpec) ([]byte, error) {
	tools := make([]sdk.ChatCompletionToolUnionParam, len(specs))
	for i, t := range specs {
		tool, err := toolParam(t)
		if err != nil {
			return nil, err
		}
		tools[i] = tool
	}
	return json.Marshal(tools)
}

// messages maps one llm message onto Chat Completions messages. A user
// message's tool results become "tool" messages, first and in order,
// because the API wants them right after the assistant message that made
// the calls; its text follows as a user message.
func messages(m llm.Message) []sdk.ChatCompletionMessageParamUnion {
	if m.Role == llm.Assistant {
		return assistantMessage(m)
	}
	var out []sdk.ChatCompletionMessageParamUnion
	var texts []string
	for _, b := range m.Content {
		switch b.Type {
		case llm.ToolResultBlock:
			content := b.Text
			if b.IsError {
				content = errorPrefix + content
			}
			out = append(out, sdk.ToolMessage(content, b.ToolUseID))
		case llm.TextBlock:
			if b.Text != "" {
				texts = append(texts, b.Text)
			}
		}
	}
	switch len(texts) {
	case 0:
	case 1:
		// A plain string is what every compatible server understands.
		out = append(out, sdk.UserMessage(texts[0]))
	default:
		parts := make([]sdk.ChatCompletionContentPartUnionParam, len(texts))
		for i, s := range texts {
			parts[i] = sdk.TextContentPart(s)
		}
		out = append(out, sdk.UserMessage(parts))
	}
	return out
}

func assistantMessage(m llm.Message) []sdk.ChatCompletionMessageParamUnion {
	var a sdk.ChatCompletionAssistantMessageParam
	if text := m.Text(); text != "" {
		a.Content.OfString = sdk.String(text)
	}
	for _, b := range m.ToolUses() {
		args := string(b.Input)
		if args == "" {
			args = "{}"
		}
		// Arguments travel as a string, so even a call cut off mid-JSON
		// goes back exactly as the model wrote it.
		a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
				ID:       b.ID,
				Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: args},
			},
		})
	}
	if a.Content.OfString.Value == "" && len(a.ToolCalls) == 0 {
		return nil
	}
	return []sdk.ChatCompletionMessageParamUnion{{OfAssistant: &a}}
}

func toolParam(t llm.ToolSpec) (sdk.ChatCompletionToolUnionParam, error) {
	def := shared.FunctionDefinitionParam{Name: t.Name}
	if t.Description != "" {
		def.Description = sdk.String(t.Description)
	}
	if len(t.InputSchema) > 0 {
		schema, err := envelope.Schema(t)
		if err != nil {
			return sdk.ChatCompletionToolUnionParam{}, err
		}
		def.Parameters = schema
	}
	return sdk.ChatCompletionFunctionTool(def), nil
}
