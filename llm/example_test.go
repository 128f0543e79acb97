package llm_test

import (
	"context"
	"fmt"

	"github.com/nightshift-dev/nightshift/llm"
)

// A Model makes one call and never retries; a provider's failure is an
// *llm.Error whose class says whether a later call may succeed.
func Example() {
	calls := 0
	m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		calls++
		if calls == 1 {
			return nil, &llm.Error{Provider: "anthropic", Status: 529, Class: llm.ClassifyStatus(529, "overloaded_error", "Overloaded")}
		}
		return &llm.Response{Content: []llm.Block{llm.Text("done")}, StopReason: llm.EndTurn}, nil
	})
	req := &llm.Request{Messages: []llm.Message{llm.UserText("write the notes")}}
	_, err := m.Generate(context.Background(), req)
	c := llm.ClassOf(err)
	fmt.Println(c, c.Retryable())
	res, _ := m.Generate(context.Background(), req)
	fmt.Println(res.StopReason, res.Content[0].Text)
	// Output:
	// overloaded true
	// end_turn done
}
