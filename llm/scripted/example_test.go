package scripted_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// A rate-limited call, retried, then a tool call and a final answer.
func Example() {
	sc, err := scripted.Parse([]byte(`
turns:
  - attempts:
      - {status: 429, headers: {retry-after: "2"}}
      - tool_calls: [{name: read_file, input: {path: notes.txt}}]
  - text: Done.
`))
	if err != nil {
		panic(err)
	}
	m := scripted.New(sc, scripted.Config{Clock: clock.NewFake(clock.Real{}.Now())})
	req := &llm.Request{Messages: []llm.Message{llm.UserText("Summarise notes.txt")}}

	_, err = m.Generate(context.Background(), req)
	var e *llm.Error
	if errors.As(err, &e) {
		fmt.Println(e.Class, e.RetryAfter)
	}
	resp, _ := m.Generate(context.Background(), req) // the retry
	fmt.Println(resp.StopReason, resp.Content[0].Name, string(resp.Content[0].Input))

	req.Messages = append(req.Messages, resp.Message(),
		llm.Message{Role: llm.User, Content: []llm.Block{llm.ToolResult(resp.Content[0].ID, "three notes", false)}})
	resp, _ = m.Generate(context.Background(), req)
	fmt.Println(resp.StopReason, resp.Content[0].Text)
	// Output:
	// rate-limited 2s
	// tool_use read_file {"path":"notes.txt"}
	// end_turn Done.
}
