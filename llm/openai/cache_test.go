package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
)

var readFile = llm.ToolSpec{Name: "read_file", Description: "Read a file.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}

// step is an assistant turn of n tool calls and the user turn of their
// results, built fresh as an agent builds them.
func step(i, n int) []llm.Message {
	a := llm.Message{Role: llm.Assistant}
	u := llm.Message{Role: llm.User}
	for j := range n {
		id := fmt.Sprintf("call_%d_%d", i, j)
		a.Content = append(a.Content, llm.ToolUse(id, "read_file", json.RawMessage(`{"path":"a.txt"}`)))
		u.Content = append(u.Content, llm.ToolResult(id, "alpha", j%2 == 1))
	}
	return []llm.Message{a, u}
}

// TestThePromptsPrefixIsByteStable: OpenAI caches a prompt by its exact
// prefix, so each call's body must begin with the previous call's bytes,
// less the end of the messages array; and each message is encoded once,
// not once per call.
func TestThePromptsPrefixIsByteStable(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		c, rec := setup(t, stream, serve(wireReply{Text: "ok", FinishReason: "stop", Usage: map[string]int{"prompt_tokens": 1, "completion_tokens": 1}}))
		msgs := []llm.Message{llm.UserText("Read every file.")}
		var prev []byte
		for i := range 6 {
			req := &llm.Request{System: "s", Tools: []llm.ToolSpec{readFile}, Messages: msgs}
			before := c.enc.Len()
			if _, err := c.Generate(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			body := rec.LastRaw(t)
			if prev != nil && !bytes.HasPrefix(body, prev[:len(prev)-2]) {
				t.Fatalf("call %d does not begin with call %d's bytes:\n%s\n%s", i, i-1, prev, body)
			}
			if i > 1 {
				if d := c.enc.Len() - before; d != 2 {
					t.Errorf("call %d: %d new encodings, want 2 (the two new messages)", i, d)
				}
			}
			prev = body
			msgs = append(msgs, step(i, 3)...)
		}
	})
}
