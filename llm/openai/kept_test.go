package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
)

// A long conversation's bodies, written over the body of the call before
// (encoded.Cache.AppendTo), are the bodies a client with nothing kept
// builds, byte for byte, call after call: with failed results, a tool
// input changed in place, and a history cut short on the way.
func TestKeptBodiesAreTheBodiesBuiltWhole(t *testing.T) {
	c, rec := setup(t, false, serve(wireReply{Text: "done", FinishReason: "stop"}))
	tools := []llm.ToolSpec{{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	msgs := []llm.Message{llm.UserText("Read every file.")}
	reused := 0
	for i := range 60 {
		id := fmt.Sprintf("toolu_%d", i)
		msgs = append(msgs,
			llm.Message{Role: llm.Assistant, Content: []llm.Block{llm.ToolUse(id, "read_file", json.RawMessage(fmt.Sprintf(`{"path":"f%d"}`, i)))}},
			llm.Message{Role: llm.User, Content: []llm.Block{llm.ToolResult(id, strings.Repeat("x", i), i%7 == 3)}})
		switch i {
		case 30:
			msgs[3].Content[0].Input[2] = 'P' // the caller reuses its buffer
		case 45:
			msgs = msgs[:21]
		}
		req := &llm.Request{System: "Be brief.", Tools: tools, Messages: msgs}
		if st := c.enc.LastStamp(msgs); st != 0 && c.bodies.Kept() == st {
			reused++
		}
		if _, err := c.Generate(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		fresh, err := New(Config{APIKey: testKey, BaseURL: rec.URL})
		if err != nil {
			t.Fatal(err)
		}
		call, err := fresh.request(req, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.LastRaw(t); !bytes.Equal(got, call.body) {
			t.Fatalf("call %d sent\n%s\nbuilt whole it is\n%s", i, got, call.body)
		}
		call.pooled.Done()
	}
	if reused < 30 {
		t.Errorf("%d of 60 calls were built over the body before", reused)
	}
}
