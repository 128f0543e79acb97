package scripted

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/nightshift-dev/nightshift/llm"
)

func TestParseReadsEveryForm(t *testing.T) {
	sc, err := Parse([]byte(`
name: demo
loop: true
scripts:
  - name: judge
    when: {contains: "<final_answer>", in: last}
    turns:
      - cases:
          - when: {matches: 'steps: [0-4]\b'}
            text: "FAIL: too few steps"
          - text: PASS
  - turns:
      - attempts:
          - {status: 429, headers: {retry-after-ms: "5"}, error: {type: rate_limit_error, message: slow down}}
          - drop: true
          - delay: 250ms
            tool_calls:
              - {name: read_file, input: {path: a.txt}}
              - {id: mine, name: write_file, raw_input: '{"path": '}
            stop: max_tokens
            usage: {input: 10, output: 3}
      - empty: true
`))
	if err != nil {
		t.Fatal(err)
	}
	want := &Scenario{
		Name: "demo",
		Loop: true,
		Scripts: []Script{
			{
				Name: "judge",
				When: &Match{Contains: Strings{"<final_answer>"}, In: "last"},
				Turns: []Turn{{Cases: []Case{
					{When: &Match{Matches: `steps: [0-4]\b`}, Reply: Reply{Text: "FAIL: too few steps"}},
					{Reply: Reply{Text: "PASS"}},
				}}},
			},
			{
				Name: "script2",
				Turns: []Turn{
					{Attempts: []Reply{
						{Status: 429, Headers: map[string]string{"retry-after-ms": "5"}, Error: &ErrorBody{Type: "rate_limit_error", Message: "slow down"}},
						{Drop: true},
						{
							Delay: 250 * time.Millisecond,
							ToolCalls: []ToolCall{
								{Name: "read_file", Input: map[string]any{"path": "a.txt"}},
								{ID: "mine", Name: "write_file", RawInput: `{"path": `},
							},
							Stop:  llm.MaxTokens,
							Usage: &Usage{Input: 10, Output: 3},
						},
					}},
					{Reply: Reply{Empty: true}},
				},
			},
		},
		validated: true,
	}
	opts := cmp.Options{cmp.AllowUnexported(Scenario{}), cmpopts.IgnoreUnexported(Match{})}
	if diff := cmp.Diff(want, sc, opts); diff != "" {
		t.Errorf("scenario (-want +got):\n%s", diff)
	}
}

func TestParseShorthandTurnsBecomeScriptMain(t *testing.T) {
	sc, err := Parse([]byte(`{"turns": [{"text": "hi"}]}`)) // JSON is YAML too
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Scripts) != 1 || sc.Scripts[0].Name != "main" || sc.Turns != nil {
		t.Errorf("scripts = %+v, turns = %+v; want one script main", sc.Scripts, sc.Turns)
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"an empty document", ``, "scenario is empty"},
		{"a scenario without turns", `name: x`, "no turns"},
		{"both turns and scripts", "turns: [{text: a}]\nscripts: [{turns: [{text: b}]}]", "both turns and scripts"},
		{"an unknown key", "turns: [{txt: a}]", "field txt not found"},
		{"an unknown stop", "turns: [{text: a}, {text: b, stop: done}]", `script main: turn 2 (position 1): unknown stop "done"`},
		{"a bad regexp", "scripts: [{name: judge, when: {matches: '('}, turns: [{text: a}]}]", "script judge: when: bad regexp"},
		{"an unknown in", "turns: [{cases: [{when: {in: first}, text: a}]}]", `case 1: when: unknown in "first"`},
		{"a turn with attempts and inline fields", "turns: [{text: a, attempts: [{text: b}]}]", "turn 1 (position 0): a turn needs exactly one of"},
		{"a case with attempts and inline fields", "turns: [{cases: [{text: a, attempts: [{text: b}]}]}]", "case 1: has both reply fields and attempts"},
		{"a reply without content", "turns: [{stop: end_turn}]", "reply has no content"},
		{"a stream_error with a status", "turns: [{status: 500, stream_error: {}}]", "stream_error cannot go with status"},
		{"a stream_error with a drop", "turns: [{drop: true, stream_error: {}}]", "stream_error cannot go with status, drop or empty"},
		{"cache tokens beyond the input", "turns: [{text: a, usage: {input: 10, cache_read: 11}}]", "cannot exceed it"},
		{"a status that is not an error", "turns: [{status: 200}]", "not an error status"},
		{"an error status with text", "turns: [{status: 500, text: a}]", "cannot also have text"},
		{"headers without a status", "turns: [{text: a, headers: {retry-after: '1'}}]", "headers and error need a status"},
		{"an empty reply with text", "turns: [{empty: true, text: a}]", "an empty reply cannot have text"},
		{"a tool call without a name", "turns: [{tool_calls: [{input: {}}]}]", "tool call 1 has no name"},
		{"a tool call with input and raw_input", "turns: [{tool_calls: [{name: x, input: {}, raw_input: '{'}]}]", "both input and raw_input"},
		{"an input with non-string keys", "turns: [{tool_calls: [{name: x, input: {1: 2}}]}]", "cannot be sent as JSON"},
		{"an attempt that is wrong", "turns: [{attempts: [{text: a}, {status: 99}]}]", "attempt 2: status 99"},
		{"a bad delay", "turns: [{text: a, delay: soon}]", "soon"},
	}
	for _, tt := range tests {
		t.Run("it rejects "+tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml))
			if err == nil {
				t.Fatalf("Parse succeeded; want an error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q; want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte("turns: [{stop: nope, text: a}]"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !regexp.MustCompile(`bad\.yaml: .*unknown stop`).MatchString(err.Error()) {
		t.Errorf("Load error = %v; want the path and the problem", err)
	}
}
