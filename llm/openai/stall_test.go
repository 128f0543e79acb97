package openai

import (
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/providertest"
)

// TestStallCancelsAStreamThatStopsSendingAndTheRetrySucceeds: the first
// stream sends its first chunk and then nothing; once the simulated
// clock passes the stall time the call fails as a timeout, and the retry
// (the scripted simulator, whole) answers. The first-byte allowance is
// off: whether the client has read the first chunk when the clock moves
// is not this test's to decide (TestStallAllowsALongPromptsFirstByte
// tests the allowance).
func TestStallCancelsAStreamThatStopsSendingAndTheRetrySucceeds(t *testing.T) {
	providertest.StallRetried(t, Provider,
		"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n",
		func(baseURL string, c clock.Clock) (llm.Model, error) {
			return New(Config{APIKey: testKey, BaseURL: baseURL, Stream: true, Stall: 2 * time.Minute, PrefillPerToken: -1, Clock: c})
		})
}
