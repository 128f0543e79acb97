// Package llmtest is a conformance suite for llm.Model implementations, in
// the manner of testing/slogtest: a provider's test calls Run with a
// function that builds the model under test, and the suite plays every
// case against it through the scripted simulator (llm/scripted), over the
// real wire, checking what every part of nightshift relies on: replies,
// tool calls and their IDs, stop reasons, usage with its cache tokens,
// what arrives at the server, and every failure classified, with its
// status and Retry-After, and without the API key in it.
//
// The simulator speaks the Anthropic Messages and the OpenAI Chat
// Completions wire formats, so the suite tests a provider that speaks one
// of them: the built-in llm/anthropic and llm/openai, or a third party's
// client of either API (or of a server that copies one). Run it once per
// mode the provider has (streaming and not):
//
//	func TestConformance(t *testing.T) {
//		llmtest.Run(t, llmtest.OpenAI, func(t *testing.T, env llmtest.Env) llm.Model {
//			m, err := myprovider.New(myprovider.Config{BaseURL: env.BaseURL, APIKey: env.APIKey})
//			if err != nil {
//				t.Fatal(err)
//			}
//			return m
//		})
//	}
package llmtest
