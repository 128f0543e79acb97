package scripted_test

import (
	"context"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// Regression: tool inputs were JSON-encoded with HTML escaping, so a
// command "echo hi > file" reached events and terminals as "\u003e".
func TestToolInputsAreNotHTMLEscaped(t *testing.T) {
	sc, err := scripted.Parse([]byte(`{turns: [{tool_calls: [{name: run_command, input: {command: "echo hi > a && cat <b"}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := scripted.New(sc, scripted.Config{}).Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("go")}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(resp.Content[0].Input), `{"command":"echo hi > a && cat <b"}`; got != want {
		t.Errorf("input = %s, want %s", got, want)
	}
}
