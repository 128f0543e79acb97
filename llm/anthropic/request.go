package anthropic

import (
	"cmp"
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/nightshift-dev/nightshift/llm"
)

// params maps a provider-neutral request onto the SDK's. A request the API
// could never accept (a tool schema that is not JSON) is a BadRequest,
// found before anything is sent.
func (c *Client) params(req *llm.Request) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{
		Model:     cmp.Or(req.Model, c.model),
		MaxTokens: int64(cmp.Or(req.MaxTokens, c.maxTokens)),
		Messages:  messages(req.Messages),
	}
	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	for _, t := range req.Tools {
		tool, err := toolParam(t)
		if err != nil {
			return p, &llm.Error{Provider: Provider, Class: llm.BadRequest, Message: err.Error(), Err: err}
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: tool})
	}
	return p, nil
}

// messages maps the conversation. The API refuses empty text blocks and
// messages without content, so both are left out; consecutive messages of
// one role are merged by the API itself.
func messages(in []llm.Message) []sdk.MessageParam {
	out := make([]sdk.MessageParam, 0, len(in))
	for _, m := range in {
		var blocks []sdk.ContentBlockParamUnion
		for _, b := range m.Content {
			if pb, ok := blockParam(b); ok {
				blocks = append(blocks, pb)
			}
		}
		if len(blocks) == 0 {
			continue
		}
		role := sdk.MessageParamRoleUser
		if m.Role == llm.Assistant {
			role = sdk.MessageParamRoleAssistant
		}
		out = append(out, sdk.MessageParam{Role: role, Content: blocks})
	}
	return out
}

func blockParam(b llm.Block) (sdk.ContentBlockParamUnion, bool) {
	switch b.Type {
	case llm.TextBlock:
		if b.Text == "" {
			return sdk.ContentBlockParamUnion{}, false
		}
		return sdk.NewTextBlock(b.Text), true
	case llm.ToolUseBlock:
		return sdk.NewToolUseBlock(b.ID, toolInput(b.Input), b.Name), true
	case llm.ToolResultBlock:
		r := sdk.ToolResultBlockParam{ToolUseID: b.ToolUseID}
		if b.IsError {
			r.IsError = sdk.Bool(true)
		}
		if b.Text != "" {
			r.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: b.Text}}}
		}
		return sdk.ContentBlockParamUnion{OfToolResult: &r}, true
	}
	return sdk.ContentBlockParamUnion{}, false
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

// toolParam maps a tool spec. The SDK models input_schema with separate
// properties and required fields; everything else in the schema
// ($defs, additionalProperties, ...) travels as extra fields.
func toolParam(t llm.ToolSpec) (*sdk.ToolParam, error) {
	tool := &sdk.ToolParam{Name: t.Name}
	if t.Description != "" {
		tool.Description = sdk.String(t.Description)
	}
	if len(t.InputSchema) == 0 {
		return tool, nil
	}
	var schema map[string]any
	if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
		return nil, fmt.Errorf("tool %q: input schema is not a JSON object: %w", t.Name, err)
	}
	tool.InputSchema.Properties = schema["properties"]
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
