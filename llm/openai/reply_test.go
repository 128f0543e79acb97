package openai

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/openai/openai-go/v3"
)

// TestReplyAnswersAsTheSDKType holds the fast decoding of a whole reply
// (reply) to the answer of the SDK's type for the same body, over the
// shapes OpenAI and compatible servers send, and checks which of the two
// decoded it.
func TestReplyAnswersAsTheSDKType(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		// fast says reply decodes the body itself; else the SDK's type
		// does.
		fast bool
	}{
		{"text", `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-x","choices":[{"index":0,"message":{"role":"assistant","content":"Hello \u00e9\n\"q\""},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`, true},
		{"tool calls", `{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\": \"a.go\"}"}},{"id":"call_2","type":"function","function":{"name":"list","arguments":"  {}  "}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1010,"completion_tokens":20,"total_tokens":1030,"prompt_tokens_details":{"cached_tokens":1000}}}`, true},
		{"arguments as an object", `{"model":"llama","choices":[{"message":{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":{"a": [1, 2]}}}]},"finish_reason":"stop"}]}`, true},
		{"arguments cut off", `{"model":"m","choices":[{"message":{"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{\"path\":\"a"}}]},"finish_reason":"length"}]}`, true},
		{"arguments empty", `{"model":"m","choices":[{"message":{"tool_calls":[{"id":"c","function":{"name":"f","arguments":""}}]},"finish_reason":"tool_calls"}]}`, true},
		{"arguments null", `{"model":"m","choices":[{"message":{"tool_calls":[{"id":"c","function":{"name":"f","arguments":null}}]},"finish_reason":null}]}`, true},
		{"arguments missing", `{"model":"m","choices":[{"message":{"tool_calls":[{"id":"c","function":{"name":"f"}}]}}]}`, true},
		{"arguments an array", `{"model":"m","choices":[{"message":{"tool_calls":[{"id":"c","function":{"name":"f","arguments":[1]}}]},"finish_reason":"tool_calls"}]}`, true},
		{"arguments a number", `{"model":"m","choices":[{"message":{"tool_calls":[{"id":"c","function":{"name":"f","arguments":5}}]},"finish_reason":"tool_calls"}]}`, true},
		{"refusal", `{"model":"m","choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`, true},
		{"text and calls", `{"model":"m","choices":[{"message":{"content":"Reading.","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"stop"}]}`, true},
		{"content filter", `{"model":"m","choices":[{"message":{"content":""},"finish_reason":"content_filter"}]}`, true},
		{"unknown reason", `{"model":"m","choices":[{"message":{"content":"x"},"finish_reason":"eos"}]}`, true},
		{"usage null", `{"model":"m","choices":[{"message":{"content":"x"},"finish_reason":"stop"}],"usage":null}`, true},
		{"two choices", `{"model":"m","choices":[{"message":{"content":"first"},"finish_reason":"stop"},{"message":{"content":"second"},"finish_reason":"stop"}]}`, true},
		{"no choices", `{"model":"m","choices":[]}`, true},
		{"choices null", `{"model":"m","choices":null}`, true},
		{"message null", `{"model":"m","choices":[{"message":null,"finish_reason":"stop"}]}`, true},
		{"tool calls null", `{"model":"m","choices":[{"message":{"content":"x","tool_calls":null},"finish_reason":"stop"}]}`, true},
		{"function null", `{"model":"m","choices":[{"message":{"tool_calls":[{"id":"c","type":"function","function":null}]},"finish_reason":"tool_calls"}]}`, true},
		{"escaped arguments", `{"model":"m","choices":[{"message":{"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{\"p\":\"\u00e9\\n\"}"}}]},"finish_reason":"tool_calls"}]}`, true},
		{"an error in a 200", `{"error":{"message":"overloaded","type":"server_error"}}`, true},
		{"content as parts", `{"model":"m","choices":[{"message":{"content":[{"type":"text","text":"x"}]},"finish_reason":"stop"}]}`, false},
		{"tokens as strings", `{"model":"m","choices":[{"message":{"content":"x"},"finish_reason":"stop"}],"usage":{"prompt_tokens":"12","completion_tokens":3}}`, false},
		{"tokens as floats", `{"model":"m","choices":[{"message":{"content":"x"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12.0,"completion_tokens":3}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			if fast := json.Unmarshal(body, &reply{}) == nil; fast != tc.fast {
				t.Fatalf("reply decodes the body: %v, want %v", fast, tc.fast)
			}
			got, gotOK, err := decodeReply(body)
			if err != nil {
				t.Fatal(err)
			}
			var cc sdk.ChatCompletion
			if err := json.Unmarshal(body, &cc); err != nil {
				t.Fatal(err)
			}
			if wantOK := len(cc.Choices) > 0; gotOK != wantOK {
				t.Fatalf("ok = %v, want %v", gotOK, wantOK)
			}
			if !gotOK {
				return
			}
			if diff := cmp.Diff(response(&cc), got); diff != "" {
				t.Errorf("reply differs from the SDK type's answer (-sdk +reply):\n%s", diff)
			}
		})
	}
}

// TestReplyThatIsNotJSONIsAnError: a body neither decoder reads is an
// error, which the caller reports as a malformed reply.
func TestReplyThatIsNotJSONIsAnError(t *testing.T) {
	if _, _, err := decodeReply([]byte(`{"model":"m","choices":[`)); err == nil {
		t.Fatal("a cut-off body decoded without an error")
	}
}
