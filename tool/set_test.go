package tool

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/llm"
)

// fake is a tool whose behaviour a test chooses.
type fake struct {
	name   string
	class  Class
	schema string
	run    func(ctx context.Context, input json.RawMessage) Result
}

func (f fake) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: f.name, Description: "test tool " + f.name, InputSchema: json.RawMessage(f.schema)}
}

func (f fake) Class() Class { return f.class }

func (f fake) Run(ctx context.Context, input json.RawMessage) Result {
	if f.run == nil {
		return OK(f.name + " ran with " + string(input))
	}
	return f.run(ctx, input)
}

const pathSchema = `{"type":"object","properties":{"path":{"type":"string","description":"a path"}},"required":["path"],"additionalProperties":false}`

func named(name string) fake { return fake{name: name, class: Read, schema: pathSchema} }

func mustSet(t *testing.T, tools ...Tool) *Set {
	t.Helper()
	s, err := NewSet(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNewSetRefusesBrokenTools(t *testing.T) {
	tests := []struct {
		name  string
		tools []Tool
		want  string
	}{
		{"a name used twice is refused", []Tool{named("read_file"), named("read_file")}, "read_file: registered twice"},
		{"an empty name is refused", []Tool{named("")}, `name ""`},
		{"a name with spaces is refused", []Tool{named("read file")}, `name "read file"`},
		{"an invalid class is refused", []Tool{fake{name: "x", class: "sometimes", schema: pathSchema}}, `invalid class "sometimes"`},
		{"a missing schema is refused", []Tool{fake{name: "x", class: Read}}, "input schema: missing"},
		{"a schema that is not JSON is refused", []Tool{fake{name: "x", class: Read, schema: `{"type":`}}, "input schema"},
		{"a schema of a string is refused", []Tool{fake{name: "x", class: Read, schema: `{"type":"string"}`}}, `want "object"`},
		{"a schema with a bad keyword value is refused", []Tool{fake{name: "x", class: Read, schema: `{"type":"object","required":"path"}`}}, "input schema"},
		{"a schema with a dangling reference is refused", []Tool{fake{name: "x", class: Read, schema: `{"type":"object","properties":{"a":{"$ref":"#/$defs/nope"}}}`}}, "input schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewSet(tt.tools...)
			if err == nil {
				t.Fatal("NewSet succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestSpecsAndNamesAreSortedByName(t *testing.T) {
	s := mustSet(t, named("write_file"), named("read_file"), named("edit_file"), named("list_dir"))
	want := []string{"edit_file", "list_dir", "read_file", "write_file"}
	if diff := cmp.Diff(want, s.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	var specs []string
	for _, sp := range s.Specs() {
		specs = append(specs, sp.Name)
	}
	if diff := cmp.Diff(want, specs); diff != "" {
		t.Errorf("Specs (-want +got):\n%s", diff)
	}
	if tl, ok := s.Get("list_dir"); !ok || tl.Spec().Name != "list_dir" {
		t.Errorf("Get(list_dir) = %v, %v", tl, ok)
	}
	if _, ok := s.Get("search_file"); ok {
		t.Error("Get found a tool that was never registered")
	}
}

func TestCall(t *testing.T) {
	s := mustSet(t,
		named("write_file"), named("read_file"), named("edit_file"), named("list_dir"),
		fake{name: "boom", class: Read, schema: `{"type":"object"}`, run: func(context.Context, json.RawMessage) Result {
			var m map[string]int
			//lint:ignore SA5000 the nil map write is the point: a real bug's panic
			m["x"]++
			return OK("unreachable")
		}},
	)
	tests := []struct {
		name  string
		tool  string
		input string
		want  Result
	}{
		{
			name: "a valid call runs the tool", tool: "read_file", input: `{"path":"a.md"}`,
			want: OK(`read_file ran with {"path":"a.md"}`),
		},
		{
			name: "empty input counts as an empty object", tool: "boom", input: ``,
			want: Error("boom failed: panic: assignment to entry in nil map"),
		},
		{
			name: "an unknown tool lists the tools that exist", tool: "search_file", input: `{}`,
			want: Error(`unknown tool "search_file"; the tools are: boom, edit_file, list_dir, read_file, write_file`),
		},
		{
			name: "input that is not JSON says so", tool: "read_file", input: `{"path":`,
			want: Error("read_file: the input is not valid JSON: unexpected end of JSON input"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.Call(t.Context(), tt.tool, json.RawMessage(tt.input))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCallWithInputThatFailsTheSchema(t *testing.T) {
	s := mustSet(t, named("read_file"))
	tests := []struct {
		name, input, want string
	}{
		{"a missing field is named", `{}`, "path"},
		{"a wrong type is named", `{"path":3}`, "path"},
		{"an unexpected field is named", `{"path":"a","mode":"x"}`, "mode"},
		{"an array instead of an object is refused", `["a"]`, "type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.Call(t.Context(), "read_file", json.RawMessage(tt.input))
			if !got.IsError || got.Transient {
				t.Errorf("result %+v, want a permanent error", got)
			}
			if !strings.HasPrefix(got.Content, "read_file: the input does not match the tool's schema: ") || !strings.Contains(got.Content, tt.want) {
				t.Errorf("content %q lacks the validator's message about %q", got.Content, tt.want)
			}
		})
	}
}

func TestCallTimeouts(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	waits := fake{name: "waits", class: Read, schema: `{"type":"object"}`, run: func(ctx context.Context, _ json.RawMessage) Result {
		<-ctx.Done()
		return Error("late: " + ctx.Err().Error())
	}}
	stuck := fake{name: "stuck", class: Read, schema: `{"type":"object"}`, run: func(context.Context, json.RawMessage) Result {
		<-release // ignores its context entirely
		return OK("late")
	}}
	s := mustSet(t, waits, stuck)
	s.SetConfig(Config{Timeout: time.Millisecond})

	t.Run("a tool that ignores its context still times out", func(t *testing.T) {
		got := s.Call(t.Context(), "stuck", nil)
		want := Result{Content: "stuck timed out after 1ms", IsError: true, Transient: true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("a tool that gives up when its context ends gets the same timeout result", func(t *testing.T) {
		got := s.Call(t.Context(), "waits", nil)
		want := Result{Content: "waits timed out after 1ms", IsError: true, Transient: true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("the caller's deadline also counts as a timeout", func(t *testing.T) {
		s := mustSet(t, stuck)
		ctx, cancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
		defer cancel()
		got := s.Call(ctx, "stuck", nil)
		want := Result{Content: "stuck timed out: the run's deadline passed", IsError: true, Transient: true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("a cancelled caller gets a permanent error", func(t *testing.T) {
		s := mustSet(t, stuck)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		got := s.Call(ctx, "stuck", nil)
		want := Error("stuck was cancelled before it finished")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("the default timeout is a minute", func(t *testing.T) {
		if got := mustSet(t).Timeout(); got != time.Minute {
			t.Errorf("Timeout() = %v", got)
		}
	})
}

func TestConcurrentCalls(t *testing.T) {
	s := mustSet(t, named("read_file"), named("list_dir"))
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			name := []string{"read_file", "list_dir", "nope"}[i%3]
			got := s.Call(t.Context(), name, json.RawMessage(`{"path":"x"}`))
			if got.IsError != (name == "nope") {
				t.Errorf("call %d to %s: %+v", i, name, got)
			}
		})
	}
	wg.Wait()
}

// BenchmarkCall is the Set's own cost per call: the schema check, the
// goroutine and the timer around a tool that does nothing.
func BenchmarkCall(b *testing.B) {
	s, err := NewSet(named("read_file"))
	if err != nil {
		b.Fatal(err)
	}
	in := json.RawMessage(`{"path":"docs/notes.md"}`)
	for b.Loop() {
		if res := s.Call(b.Context(), "read_file", in); res.IsError {
			b.Fatal(res.Content)
		}
	}
}

func TestWithAddsToolsAndKeepsTheConfiguration(t *testing.T) {
	s, err := NewSet(Func("a", "A.", Read, func(context.Context, struct{}) (string, error) { return "a", nil }))
	if err != nil {
		t.Fatal(err)
	}
	s.SetConfig(Config{Timeout: 7 * time.Second, Redact: func(c string) string { return strings.ReplaceAll(c, "secret", "[redacted]") }})
	w, err := s.With(Func("b", "B.", Read, func(context.Context, struct{}) (string, error) { return "a secret", nil }))
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Names(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("names %v", got)
	}
	if w.Timeout() != 7*time.Second {
		t.Errorf("timeout %s, want the original set's", w.Timeout())
	}
	if res := w.Call(context.Background(), "b", json.RawMessage(`{}`)); res.Content != "a [redacted]" {
		t.Errorf("the new set's results are not redacted: %q", res.Content)
	}
	if len(s.Names()) != 1 {
		t.Errorf("the original set changed: %v", s.Names())
	}
	if _, err := s.With(Func("a", "again", Read, func(context.Context, struct{}) (string, error) { return "", nil })); err == nil {
		t.Errorf("a duplicate name was accepted")
	}
}
