package anthropic

import (
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/providertest"
)

// TestStallCancelsAStreamThatStopsSendingAndTheRetrySucceeds: the first
// stream sends its message_start and then nothing; once the simulated
// clock passes the stall time the call fails as a timeout, and the retry
// (the scripted simulator, whole) answers.
func TestStallCancelsAStreamThatStopsSendingAndTheRetrySucceeds(t *testing.T) {
	providertest.StallRetried(t, Provider,
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n",
		func(baseURL string, c clock.Clock) (llm.Model, error) {
			return New(Config{APIKey: testKey, BaseURL: baseURL, Stream: true, Stall: 2 * time.Minute, Clock: c})
		})
}
