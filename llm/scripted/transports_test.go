package scripted_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// TestBothTransportsPlayTheSameReplies runs one conversation over the wire
// (Anthropic SDK, streaming) and replays each request the server received
// through the in-process Model: the two must agree turn by turn, because
// they share one engine.
func TestBothTransportsPlayTheSameReplies(t *testing.T) {
	const yaml = `
turns:
  - attempts: [{status: 503}, {text: "Looking.", tool_calls: [{name: list_dir, input: {path: .}}]}]
  - cases:
      - {when: {contains: README.md, in: last}, tool_calls: [{name: read_file, input: {path: README.md}}]}
      - text: "Nothing to read."
  - {text: "It is a word counter.", usage: {input: 3, output: 6}}
`
	hs, sim := startServer(t, yaml, scripted.ServerConfig{})
	c := anthropicClient(hs.URL)
	p := anthropicParams()
	var wire []reply
	for range 4 { // one retry and three steps
		m, _, err := callAnthropic(t.Context(), c, p, true)
		if err != nil {
			wire = append(wire, reply{Stop: "error"})
			continue
		}
		wire = append(wire, masked(anthropicView(m)))
		if m.StopReason != "tool_use" {
			break
		}
		p.Messages = append(p.Messages, m.ToParam(), anthropicParamsToolResult(m.Content[len(m.Content)-1].ID, "README.md"))
	}

	sc, _ := scripted.Parse([]byte(yaml))
	model := scripted.New(sc, scripted.Config{})
	var local []reply
	for _, req := range sim.Requests() {
		resp, err := model.Generate(context.Background(), &req)
		if err != nil {
			local = append(local, reply{Stop: "error"})
			continue
		}
		local = append(local, masked(localView(resp)))
	}
	if len(wire) != 4 {
		t.Fatalf("played %d calls over the wire; want 4", len(wire))
	}
	if diff := cmp.Diff(wire, local); diff != "" {
		t.Errorf("wire vs in-process (-wire +local):\n%s", diff)
	}
}

func localView(r *llm.Response) reply {
	v := reply{Stop: string(r.StopReason), In: r.Usage.InputTokens, Out: r.Usage.OutputTokens}
	for _, b := range r.Content {
		v.Blocks = append(v.Blocks, block{Type: string(b.Type), Text: b.Text, ID: b.ID, Name: b.Name, Input: string(b.Input)})
	}
	return v
}
