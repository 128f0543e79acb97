package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
)

// Kept is what KeptBodiesAreWhole drives of a provider's client: its
// calls, and its body building seen from inside.
type Kept struct {
	// Model is the client under test, on a server behind Rec.
	Model llm.Model
	Rec   *Recorder
	// Reused reports whether the client holds the body it built last for
	// the conversation msgs is (so that its next call is written over
	// it).
	Reused func(msgs []llm.Message) bool
	// Whole builds req's body as a client with nothing kept does.
	Whole func(req *llm.Request) ([]byte, error)
}

// KeptBodiesAreWhole checks that two long conversations on one client (a
// batch's runs, a night's workers) send, call after call, the bodies a
// client with nothing kept builds, byte for byte, although each call's
// body is written over that conversation's body before
// (encoded.Cache.AppendTo): with failed results, a tool input changed in
// place, and a history cut short on the way. Both providers run it from
// their own tests.
func KeptBodiesAreWhole(t *testing.T, k Kept) {
	t.Helper()
	tools := []llm.ToolSpec{{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	convs := [][]llm.Message{{llm.UserText("Read every file.")}, {llm.UserText("Read every other file.")}}
	reused := [2]int{}
	for i := range 60 {
		for c := range convs {
			msgs := convs[c]
			id := fmt.Sprintf("toolu_%d_%d", c, i)
			msgs = append(msgs,
				llm.Message{Role: llm.Assistant, Content: []llm.Block{llm.ToolUse(id, "read_file", json.RawMessage(fmt.Sprintf(`{"path":"f%d"}`, i)))}},
				llm.Message{Role: llm.User, Content: []llm.Block{llm.ToolResult(id, strings.Repeat("x", i), i%7 == 3)}})
			switch i {
			case 30:
				msgs[3].Content[0].Input[2] = 'P' // the caller reuses its buffer
			case 45:
				msgs = msgs[:21]
			}
			convs[c] = msgs
			req := &llm.Request{System: "Be brief.", Tools: tools, Messages: msgs}
			if k.Reused(msgs) {
				reused[c]++
			}
			if _, err := k.Model.Generate(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			want, err := k.Whole(req)
			if err != nil {
				t.Fatal(err)
			}
			if got := k.Rec.LastRaw(t); !bytes.Equal(got, want) {
				t.Fatalf("conversation %d, call %d sent\n%s\nbuilt whole it is\n%s", c, i, got, want)
			}
		}
	}
	if reused[0] < 30 || reused[1] < 30 {
		t.Errorf("%v of 60 calls of each conversation were built over its body before", reused)
	}
}
