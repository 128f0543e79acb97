package anthropic_test

import (
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/anthropic"
	"github.com/nightshift-dev/nightshift/llm/internal/providertest"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// conversation is a multi-turn tool conversation with faults on the way:
// an overload, then a dropped connection, then two tool calls, then the
// answer once the tool results are in.
const conversation = `
name: two files
turns:
  - attempts:
      - {status: 529}
      - {drop: true}
      - text: Reading both.
        tool_calls:
          - {id: toolu_a, name: read_file, input: {path: a.txt}}
          - {id: toolu_b, name: read_file, input: {path: b.txt}}
  - text: "Done: a.txt says alpha; b.txt is missing."
`

func TestConversationWithTheScriptedServer(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := "as JSON replies"
		if stream {
			name = "as streams of events"
		}
		t.Run(name, func(t *testing.T) {
			sc, err := scripted.Parse([]byte(conversation))
			if err != nil {
				t.Fatal(err)
			}
			sim := scripted.NewServer(sc, scripted.ServerConfig{})
			srv := httptest.NewServer(sim)
			t.Cleanup(srv.Close)
			m, err := anthropic.New(anthropic.Config{APIKey: "sk-ant-test", BaseURL: srv.URL, Stream: stream})
			if err != nil {
				t.Fatal(err)
			}

			req := &llm.Request{System: "Be brief.", Messages: []llm.Message{llm.UserText("Summarise a.txt and b.txt.")}}
			resp, faults := providertest.GenerateRetrying(t, m, req)
			if diff := cmp.Diff([]llm.Class{llm.Overloaded, llm.Connection}, faults); diff != "" {
				t.Errorf("failures before the reply (-want +got):\n%s", diff)
			}
			if resp.StopReason != llm.ToolUseStop {
				t.Fatalf("first reply stopped with %q, want tool_use", resp.StopReason)
			}
			var names []string
			for _, b := range resp.Message().ToolUses() {
				names = append(names, b.ID+" "+b.Name+" "+string(b.Input))
			}
			wantCalls := []string{`toolu_a read_file {"path":"a.txt"}`, `toolu_b read_file {"path":"b.txt"}`}
			if diff := cmp.Diff(wantCalls, names); diff != "" {
				t.Errorf("tool calls (-want +got):\n%s", diff)
			}

			results := llm.Message{Role: llm.User, Content: []llm.Block{
				llm.ToolResult("toolu_a", "alpha", false),
				llm.ToolResult("toolu_b", "ENOENT: b.txt", true),
			}}
			req.Messages = append(req.Messages, resp.Message(), results)
			resp, faults = providertest.GenerateRetrying(t, m, req)
			if len(faults) != 0 {
				t.Errorf("the second turn failed on the way: %v", faults)
			}
			if resp.StopReason != llm.EndTurn || resp.Message().Text() != "Done: a.txt says alpha; b.txt is missing." {
				t.Errorf("final reply = %q %q", resp.StopReason, resp.Message().Text())
			}

			// The simulator parsed what went over the wire: the tool
			// results must arrive with their error flags.
			got := sim.Requests()
			last := got[len(got)-1].Messages
			if diff := cmp.Diff(results, last[len(last)-1]); diff != "" {
				t.Errorf("tool results as received (-want +got):\n%s", diff)
			}
		})
	}
}
