package llm

import "encoding/json"

// Role is who speaks a message.
type Role string

const (
	// User is the harness and the person: the task, tool results, feedback.
	User Role = "user"
	// Assistant is the model.
	Assistant Role = "assistant"
)

// BlockType names the kind of a content block.
type BlockType string

const (
	// TextBlock is plain text.
	TextBlock BlockType = "text"
	// ToolUseBlock is a model's request to run a tool.
	ToolUseBlock BlockType = "tool_use"
	// ToolResultBlock answers one tool use, by its ID.
	ToolResultBlock BlockType = "tool_result"
)

// Block is one piece of a message's content. Which fields are set depends on
// Type: Text for text and tool results; ID, Name and Input for a tool use;
// ToolUseID, Text and IsError for a tool result.
type Block struct {
	Type BlockType `json:"type"`
	Text string    `json:"text,omitempty"`

	// ID, Name and Input describe a tool use. Input is the raw JSON the
	// model produced; it may be invalid when the reply was cut off.
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`

	// ToolUseID and IsError describe a tool result.
	ToolUseID string `json:"tool_use_id,omitempty"`
	IsError   bool   `json:"is_error,omitempty"`
}

// Text returns a text block.
func Text(s string) Block { return Block{Type: TextBlock, Text: s} }

// ToolUse returns a tool-use block.
func ToolUse(id, name string, input json.RawMessage) Block {
	return Block{Type: ToolUseBlock, ID: id, Name: name, Input: input}
}

// ToolResult returns a tool-result block answering the tool use id.
func ToolResult(id, content string, isError bool) Block {
	return Block{Type: ToolResultBlock, ToolUseID: id, Text: content, IsError: isError}
}

// Message is one turn of a conversation.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// UserText returns a user message holding one text block.
func UserText(s string) Message { return Message{Role: User, Content: []Block{Text(s)}} }

// Text returns the concatenation of the message's text blocks.
func (m Message) Text() string {
	var n int
	for _, b := range m.Content {
		if b.Type == TextBlock {
			n += len(b.Text)
		}
	}
	buf := make([]byte, 0, n)
	for _, b := range m.Content {
		if b.Type == TextBlock {
			buf = append(buf, b.Text...)
		}
	}
	return string(buf)
}

// ToolUses returns the message's tool-use blocks, in order.
func (m Message) ToolUses() []Block {
	var out []Block
	for _, b := range m.Content {
		if b.Type == ToolUseBlock {
			out = append(out, b)
		}
	}
	return out
}

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// InputSchema is the JSON Schema of the tool's input object.
	InputSchema json.RawMessage `json:"input_schema"`
}
