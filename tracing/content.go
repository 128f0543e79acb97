package tracing

import (
	"encoding/json"

	"github.com/nightshift-dev/nightshift/llm"
)

// The shapes of gen_ai.input.messages, gen_ai.output.messages and
// gen_ai.system_instructions (semantic conventions v1.40.0): messages of
// parts, each part typed.
type (
	chatMessage struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	part struct {
		Type      string          `json:"type"`
		Content   string          `json:"content,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
		Response  string          `json:"response,omitempty"`
	}
)

// messagesJSON renders messages as the conventions' JSON.
func messagesJSON(msgs []llm.Message) string {
	out := make([]chatMessage, 0, len(msgs))
	for _, m := range msgs {
		cm := chatMessage{Role: string(m.Role), Parts: []part{}}
		for _, b := range m.Content {
			switch b.Type {
			case llm.TextBlock:
				cm.Parts = append(cm.Parts, part{Type: "text", Content: b.Text})
			case llm.ToolUseBlock:
				args := b.Input
				if !json.Valid(args) {
					args = nil
				}
				cm.Parts = append(cm.Parts, part{Type: "tool_call", ID: b.ID, Name: b.Name, Arguments: args})
			case llm.ToolResultBlock:
				cm.Role = "tool"
				cm.Parts = append(cm.Parts, part{Type: "tool_call_response", ID: b.ToolUseID, Response: b.Text})
			}
		}
		out = append(out, cm)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// systemJSON renders the system prompt as the conventions' JSON.
func systemJSON(system string) string {
	b, _ := json.Marshal([]part{{Type: "text", Content: system}})
	return string(b)
}
