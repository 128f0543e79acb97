package anthropic

import (
	"encoding/json"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/google/go-cmp/cmp"
)

// TestReplyAnswersAsTheSDKType holds the fast decoding of a whole reply
// (reply) to the answer of the SDK's type for the same body, over the
// shapes the Messages API sends, and checks which of the two decoded it.
func TestReplyAnswersAsTheSDKType(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		// fast says reply decodes the body itself; else the SDK's type
		// does.
		fast bool
	}{
		{"text", `{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Hello \u00e9\n\"q\""}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":3}}`, true},
		{"tool use", `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Reading."},{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path": "a.go",  "n": [1, 2]}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"cache_creation_input_tokens":200,"cache_read_input_tokens":1000,"output_tokens":20}}`, true},
		{"empty input", `{"model":"m","content":[{"type":"tool_use","id":"t","name":"list","input":{}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`, true},
		{"null input", `{"model":"m","content":[{"type":"tool_use","id":"t","name":"list","input":null}],"stop_reason":"tool_use"}`, true},
		{"no input", `{"model":"m","content":[{"type":"tool_use","id":"t","name":"list"}],"stop_reason":"tool_use"}`, true},
		{"input a string", `{"model":"m","content":[{"type":"tool_use","id":"t","name":"f","input":"str"}],"stop_reason":"tool_use"}`, true},
		{"block null", `{"model":"m","content":[null,{"type":"text","text":"a"}],"stop_reason":"end_turn"}`, true},
		{"thinking and server tools dropped", `{"model":"m","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"server_tool_use","id":"srv","name":"web_search","input":{"q":"x"}},{"type":"web_search_tool_result","tool_use_id":"srv","content":[]},{"type":"text","text":"done"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`, true},
		{"max tokens", `{"model":"m","content":[{"type":"text","text":"cut"}],"stop_reason":"max_tokens","usage":{"input_tokens":1,"output_tokens":1}}`, true},
		{"window exceeded", `{"model":"m","content":[],"stop_reason":"model_context_window_exceeded","usage":{"input_tokens":1,"output_tokens":0}}`, true},
		{"refusal", `{"model":"m","content":[],"stop_reason":"refusal","usage":{"input_tokens":1,"output_tokens":0}}`, true},
		{"pause", `{"model":"m","content":[{"type":"text","text":""}],"stop_reason":"pause_turn","usage":{"input_tokens":1,"output_tokens":0}}`, true},
		{"stop sequence", `{"model":"m","content":[{"type":"text","text":"a"}],"stop_reason":"stop_sequence","stop_sequence":"###"}`, true},
		{"unknown reason", `{"model":"m","content":[{"type":"text","text":"a"}],"stop_reason":"something_new"}`, true},
		{"null reason and usage", `{"model":"m","content":null,"stop_reason":null,"usage":null}`, true},
		{"an error in a 200", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, true},
		{"tokens as strings", `{"model":"m","content":[{"type":"text","text":"a"}],"stop_reason":"end_turn","usage":{"input_tokens":"12","output_tokens":3}}`, false},
		{"text as a number", `{"model":"m","content":[{"type":"text","text":5}],"stop_reason":"end_turn"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			if fast := json.Unmarshal(body, &reply{}) == nil; fast != tc.fast {
				t.Fatalf("reply decodes the body: %v, want %v", fast, tc.fast)
			}
			got, err := decodeReply(body)
			if err != nil {
				t.Fatal(err)
			}
			var m sdk.Message
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(response(&m), got); diff != "" {
				t.Errorf("reply differs from the SDK type's answer (-sdk +reply):\n%s", diff)
			}
		})
	}
}

// TestReplyThatIsNotJSONIsAnError: a body neither decoder reads is an
// error, which the caller reports as a malformed reply.
func TestReplyThatIsNotJSONIsAnError(t *testing.T) {
	if _, err := decodeReply([]byte(`{"model":"m","content":[`)); err == nil {
		t.Fatal("a cut-off body decoded without an error")
	}
}
