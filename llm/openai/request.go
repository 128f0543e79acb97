package openai

import (
	"cmp"
	"encoding/json"
	"fmt"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/nightshift-dev/nightshift/llm"
)

// errorPrefix marks a failed tool's result. Chat Completions has no
// is_error field on tool messages, so the failure is said in the content,
// where the model reads it.
const errorPrefix = "ERROR: "

// params maps a provider-neutral request onto the SDK's. A request the API
// could never accept (a tool schema that is not JSON) is a BadRequest,
// found before anything is sent.
func (c *Client) params(req *llm.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{
		Model: cmp.Or(req.Model, c.model),
	}
	limit := sdk.Int(int64(cmp.Or(req.MaxTokens, c.maxTokens)))
	if c.maxCompletionTokens {
		p.MaxCompletionTokens = limit
	} else {
		p.MaxTokens = limit
	}
	if req.System != "" {
		p.Messages = append(p.Messages, sdk.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		p.Messages = append(p.Messages, messages(m)...)
	}
	for _, t := range req.Tools {
		tool, err := toolParam(t)
		if err != nil {
			return p, &llm.Error{Provider: Provider, Class: llm.BadRequest, Message: err.Error(), Err: err}
		}
		p.Tools = append(p.Tools, tool)
	}
	if c.stream {
		p.StreamOptions.IncludeUsage = sdk.Bool(true)
	}
	return p, nil
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
		var schema map[string]any
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
			return sdk.ChatCompletionToolUnionParam{}, fmt.Errorf("tool %q: input schema is not a JSON object: %w", t.Name, err)
		}
		def.Parameters = schema
	}
	return sdk.ChatCompletionFunctionTool(def), nil
}
