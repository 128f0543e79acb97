package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/tool"
)

type addIn struct {
	A    int    `json:"a" jsonschema:"the first number"`
	B    int    `json:"b" jsonschema:"the second number"`
	Note string `json:"note,omitempty"`
}

func add(_ context.Context, in addIn) (string, error) {
	if in.A < 0 {
		return "", errors.New("add: a must not be negative")
	}
	return strconv.Itoa(in.A + in.B), nil
}

func TestFunc(t *testing.T) {
	set, err := tool.NewSet(tool.Func("add", "Add two numbers.", tool.Read, add))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tests := []struct {
		name, input string
		want        tool.Result
		wantPrefix  string
	}{
		{name: "a call that fits the schema runs fn", input: `{"a": 2, "b": 3}`, want: tool.OK("5")},
		{name: "an optional field may be left out or given", input: `{"a": 2, "b": 3, "note": "hi"}`, want: tool.OK("5")},
		{name: "fn's error goes back to the model as data", input: `{"a": -1, "b": 3}`, want: tool.Error("add: a must not be negative")},
		{name: "a missing required field is refused before fn runs", input: `{"a": 2}`, wantPrefix: "add: the input does not match the tool's schema"},
		{name: "an unknown field is refused", input: `{"a": 2, "b": 3, "c": 4}`, wantPrefix: "add: the input does not match the tool's schema"},
		{name: "a field of the wrong type is refused", input: `{"a": "two", "b": 3}`, wantPrefix: "add: the input does not match the tool's schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := set.Call(ctx, "add", json.RawMessage(tt.input))
			if tt.wantPrefix != "" {
				if !got.IsError || !strings.HasPrefix(got.Content, tt.wantPrefix) {
					t.Errorf("got %+v, want an error starting %q", got, tt.wantPrefix)
				}
				return
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	t.Run("the schema carries the fields' descriptions and requirements", func(t *testing.T) {
		spec := set.Specs()[0]
		var s struct {
			Type       string `json:"type"`
			Required   []string
			Properties map[string]struct{ Description string }
		}
		if err := json.Unmarshal(spec.InputSchema, &s); err != nil {
			t.Fatal(err)
		}
		if s.Type != "object" || fmt.Sprint(s.Required) != "[a b]" || s.Properties["a"].Description != "the first number" {
			t.Errorf("schema = %s", spec.InputSchema)
		}
	})
	t.Run("an input type with no JSON Schema is refused by NewSet", func(t *testing.T) {
		bad := tool.Func("bad", "Cannot be described.", tool.Read, func(context.Context, struct{ F func() }) (string, error) { return "", nil })
		if _, err := tool.NewSet(bad); err == nil || !strings.Contains(err.Error(), "tool: bad: input schema") {
			t.Errorf("NewSet = %v, want the schema's error", err)
		}
	})
	t.Run("an input that is not an object is refused by NewSet", func(t *testing.T) {
		bad := tool.Func("words", "Takes a list.", tool.Read, func(context.Context, []string) (string, error) { return "", nil })
		if _, err := tool.NewSet(bad); err == nil {
			t.Error("NewSet accepted a tool whose input is an array")
		}
	})
}

// A tool from a plain Go function: the input schema comes from the
// struct, and the Set checks every call against it.
func ExampleFunc() {
	type greetIn struct {
		Name string `json:"name" jsonschema:"who to greet"`
	}
	greet := tool.Func("greet", "Greet someone by name.", tool.Read,
		func(_ context.Context, in greetIn) (string, error) { return "hello, " + in.Name, nil })
	set, _ := tool.NewSet(greet)
	fmt.Println(set.Call(context.Background(), "greet", json.RawMessage(`{"name":"night"}`)).Content)
	fmt.Println(set.Call(context.Background(), "greet", json.RawMessage(`{}`)).IsError)
	// Output:
	// hello, night
	// true
}
