package tool

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nightshift-dev/nightshift/llm"
)

// Func returns a tool that runs fn. Its input schema is derived from In,
// a struct whose exported fields, by their JSON names, are the inputs: a
// field is required unless tagged omitempty or omitzero, unknown fields
// are refused, and a `jsonschema:"..."` tag is the field's description
// for the model. The Set checks every call against that schema before fn
// sees it.
//
// What fn returns is what the model reads; an error goes back to the
// model as an is_error result with the error's text (tool failures are
// data). A type In that has no JSON Schema of an object makes NewSet
// refuse the tool, so the run stops before it starts.
//
//	type addIn struct {
//		A int `json:"a" jsonschema:"the first number"`
//		B int `json:"b" jsonschema:"the second number"`
//	}
//	add := tool.Func("add", "Add two numbers.", tool.Read,
//		func(_ context.Context, in addIn) (string, error) { return strconv.Itoa(in.A + in.B), nil })
func Func[In any](name, description string, class Class, fn func(ctx context.Context, in In) (string, error)) Tool {
	t := &funcTool[In]{spec: llm.ToolSpec{Name: name, Description: description}, class: class, fn: fn}
	s, err := jsonschema.For[In](nil)
	if err == nil {
		t.spec.InputSchema, err = json.Marshal(s)
	}
	if err != nil {
		t.err = fmt.Errorf("input schema of %T: %w", *new(In), err)
	}
	return t
}

// funcTool is the Tool Func returns.
type funcTool[In any] struct {
	spec  llm.ToolSpec
	class Class
	fn    func(context.Context, In) (string, error)
	// err is why no schema could be derived from In; NewSet reports it.
	err error
}

func (t *funcTool[In]) Spec() llm.ToolSpec { return t.spec }
func (t *funcTool[In]) Class() Class       { return t.class }
func (t *funcTool[In]) schemaError() error { return t.err }

// Run decodes the input into In and calls fn.
func (t *funcTool[In]) Run(ctx context.Context, input json.RawMessage) Result {
	var in In
	if err := json.Unmarshal(input, &in); err != nil {
		return Error(fmt.Sprintf("%s: the input is not valid: %v", t.spec.Name, err))
	}
	out, err := t.fn(ctx, in)
	if err != nil {
		return Error(err.Error())
	}
	return OK(out)
}

// schemaErrorer is a tool that knows why it has no input schema.
type schemaErrorer interface{ schemaError() error }
