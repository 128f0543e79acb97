package anthropic

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/providertest"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// TestStallCancelsAStreamThatStopsSendingAndTheRetrySucceeds: the first
// stream sends its message_start and then nothing; once the simulated
// clock passes the stall time the call fails as a timeout, and the retry
// (the scripted simulator, whole) answers.
func TestStallCancelsAStreamThatStopsSendingAndTheRetrySucceeds(t *testing.T) {
	providertest.StallRetried(t, Provider,
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n",
		func(baseURL string, c clock.Clock) (llm.Model, error) {
			return New(Config{APIKey: testKey, BaseURL: baseURL, Stream: true, Stall: 2 * time.Minute, PrefillPerToken: -1, Clock: c})
		})
}

// TestStallAllowsALongPromptsFirstByte: a server behind the Messages API
// may send nothing until it has read the whole prompt, as llama.cpp does
// on the Chat Completions API (issue 28). A streamed call whose first
// byte takes longer than the stall time, on a long prompt, is not
// cancelled while the server is still reading it (the simulator's
// prefill: 2 ms a token, 4.2 s for 2,100 tokens, with a stall time of
// 2 s); with no allowance it is, which is the failure the allowance
// prevents.
func TestStallAllowsALongPromptsFirstByte(t *testing.T) {
	start := time.Date(2026, 12, 2, 2, 0, 0, 0, time.UTC)
	prompt := &llm.Request{Messages: []llm.Message{llm.UserText(strings.Repeat("tide", 2100))}}
	for _, tc := range []struct {
		name     string
		perToken time.Duration
		stalls   bool
	}{
		{"with the default allowance, the first byte is waited for", 0, false},
		{"with no allowance, the stall cancels it", -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := clock.NewFake(start)
			sc, err := scripted.Parse([]byte("server: {prefill: 2ms}\nturns: [{text: read it all}]"))
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(scripted.NewServer(sc, scripted.ServerConfig{Clock: fc}))
			t.Cleanup(srv.Close)
			c, err := New(Config{APIKey: testKey, BaseURL: srv.URL, Stream: true, Stall: 2 * time.Second, PrefillPerToken: tc.perToken, Clock: fc})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Generate(context.Background(), prompt)
			if tc.stalls {
				if llm.ClassOf(err) != llm.Timeout || !errors.Is(err, llm.ErrStalled) {
					t.Fatalf("Generate: %v, want the stall's timeout", err)
				}
				return
			}
			if err != nil || resp.Message().Text() != "read it all" {
				t.Fatalf("Generate: %v, %+v", err, resp)
			}
			if took := fc.Now().Sub(start); took < 4*time.Second {
				t.Errorf("the server read the prompt in %s; the test wants more than the stall time", took)
			}
		})
	}
}
