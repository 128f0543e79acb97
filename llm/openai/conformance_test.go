package openai_test

import (
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/llmtest"
	"github.com/nightshift-dev/nightshift/llm/openai"
)

// TestConformance runs the provider conformance suite, with JSON replies
// and with streams of events.
func TestConformance(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := "as JSON replies"
		if stream {
			name = "as streams of chunks"
		}
		t.Run(name, func(t *testing.T) {
			llmtest.Run(t, llmtest.OpenAI, func(t *testing.T, env llmtest.Env) llm.Model {
				m, err := openai.New(openai.Config{APIKey: env.APIKey, BaseURL: env.BaseURL, Stream: stream})
				if err != nil {
					t.Fatal(err)
				}
				return m
			})
		})
	}
}
