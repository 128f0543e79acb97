package openai

import (
	"context"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
)

// BenchmarkGenerate measures one call over loopback, mapping included: a
// reply of 2 KB of text and two tool calls.
func BenchmarkGenerate(b *testing.B) {
	rep := wireReply{Text: strings.Repeat("word ", 400), Calls: []wireCall{
		{ID: "call_1", Name: "read_file", Args: `{"path":"a.txt"}`},
		{ID: "call_2", Name: "write_file", Args: `{"path":"b.txt","content":"` + strings.Repeat("x", 500) + `"}`},
	}, FinishReason: "tool_calls", Usage: someUsage}
	req := &llm.Request{System: "s", Messages: []llm.Message{llm.UserText("go")}}
	for _, stream := range []bool{false, true} {
		name := "json"
		if stream {
			name = "stream"
		}
		b.Run(name, func(b *testing.B) {
			c, _ := setup(b, stream, serve(rep))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Generate(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
