package tool_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
)

// shout is a tool with a schema: the Set checks every input against it
// before Run sees it.
type shout struct{}

func (shout) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "shout",
		Description: "Repeat a word loudly.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]}`),
	}
}

func (shout) Class() tool.Class { return tool.Read }

func (shout) Run(_ context.Context, input json.RawMessage) tool.Result {
	var in struct{ Word string }
	json.Unmarshal(input, &in)
	return tool.OK(in.Word + "!")
}

func ExampleSet_Call() {
	set, err := tool.NewSet(shout{})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	fmt.Println(set.Call(ctx, "shout", json.RawMessage(`{"word":"hey"}`)))
	fmt.Println(set.Call(ctx, "whisper", json.RawMessage(`{"word":"hey"}`)))
	fmt.Println(set.Call(ctx, "shout", json.RawMessage(`{"word":7}`)))
	// Output:
	// {hey! false false}
	// {unknown tool "whisper"; the tools are: shout true false}
	// {shout: the input does not match the tool's schema: validating root: validating /properties/word: type: 7 has type "integer", want "string" true false}
}
