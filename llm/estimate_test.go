package llm

import "testing"

func TestCharsCountsWhatAPromptSends(t *testing.T) {
	req := &Request{
		System: "sys",                                                                 // 3
		Tools:  []ToolSpec{{Name: "t", Description: "dd", InputSchema: []byte(`{}`)}}, // 1+2+2
		Messages: []Message{
			UserText("hello"), // 5
			{Role: Assistant, Content: []Block{ToolUse("id", "read_file", []byte(`{"p":1}`))}}, // 9+7
			{Role: User, Content: []Block{ToolResult("id", "body", false)}},                    // 4
		},
	}
	if got := req.Chars(); got != 33 {
		t.Fatalf("Chars = %d, want 33", got)
	}
	if got := (*Request)(nil).Chars(); got != 0 {
		t.Fatalf("a nil request has %d characters", got)
	}
	for chars, want := range map[int64]int64{0: 0, 1: 1, 4: 1, 5: 2, 33: 9} {
		if got := Tokens(chars); got != want {
			t.Errorf("Tokens(%d) = %d, want %d", chars, got, want)
		}
	}
}
