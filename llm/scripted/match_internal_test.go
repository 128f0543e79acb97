package scripted

import (
	"encoding/json"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
)

func TestAllTextLen(t *testing.T) {
	tests := []struct {
		name string
		req  *llm.Request
	}{
		{"an empty request counts nothing", &llm.Request{}},
		{"the system prompt alone counts its bytes", &llm.Request{System: "be brief"}},
		{"every kind of block counts as allText writes it", &llm.Request{
			System: "sys",
			Messages: []llm.Message{
				llm.UserText("read the notes"),
				{Role: llm.Assistant, Content: []llm.Block{
					llm.Text("looking"),
					llm.ToolUse("toolu_1", "read_file", json.RawMessage(`{"path":"notes.md"}`)),
				}},
				{Role: llm.User, Content: []llm.Block{llm.ToolResult("toolu_1", "no such file: notes.md", true)}},
			},
		}},
		{"multi-byte text counts bytes, not runes", &llm.Request{Messages: []llm.Message{llm.UserText("résumé · ok")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := allTextLen(tt.req), len(allText(tt.req)); got != want {
				t.Errorf("allTextLen = %d, want len(allText) = %d", got, want)
			}
		})
	}
}
