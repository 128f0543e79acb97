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

// Two long conversations on one client (a batch's runs, a night's
// workers): each call's body, written over that conversation's body
// before (encoded.Cache.AppendTo), is the body a client with nothing kept
// builds, byte for byte, call after call: with failed results, a tool
// input changed in place, and a history cut short on the way.
func TestKeptBodiesAreTheBodiesBuiltWhole(t *testing.T) {
	c, rec := setup(t, false, serve(wireReply{Text: "done", FinishReason: "stop"}))
	tools := []llm.ToolSpec{{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	convs := [][]llm.Message{{llm.UserText("Read every file.")}, {llm.UserText("Read every other file.")}}
	reused := [2]int{}
	for i := range 60 {
		for k := range convs {
			msgs := convs[k]
			id := fmt.Sprintf("toolu_%d_%d", k, i)
			msgs = append(msgs,
				llm.Message{Role: llm.Assistant, Content: []llm.Block{llm.ToolUse(id, "read_file", json.RawMessage(fmt.Sprintf(`{"path":"f%d"}`, i)))}},
				llm.Message{Role: llm.User, Content: []llm.Block{llm.ToolResult(id, strings.Repeat("x", i), i%7 == 3)}})
			switch i {
			case 30:
				msgs[3].Content[0].Input[2] = 'P' // the caller reuses its buffer
			case 45:
				msgs = msgs[:21]
			}
			convs[k] = msgs
			req := &llm.Request{System: "Be brief.", Tools: tools, Messages: msgs}
			if st := c.enc.LastStamp(msgs); st != 0 && c.bodies.Kept(st) {
				reused[k]++
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
				t.Fatalf("conversation %d, call %d sent\n%s\nbuilt whole it is\n%s", k, i, got, call.body)
			}
			call.pooled.Done()
		}
	}
	if reused[0] < 30 || reused[1] < 30 {
		t.Errorf("%v of 60 calls of each conversation were built over its body before", reused)
	}
}
