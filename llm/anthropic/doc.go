// Package anthropic is an llm.Model on Anthropic's Messages API, through the
// official Go SDK with the SDK's own retries switched off: the retry package
// is nightshift's one, visible retry layer, so one Generate is exactly one
// HTTP request.
//
// Every failure comes back as a *llm.Error with Provider "anthropic": an
// error status is classified by its status and the body's error type (a
// 400 "credit balance is too low" is Quota, not BadRequest), an error event
// in the middle of a stream by its type (overloaded_error is Overloaded),
// a dropped connection or a stream that ends before message_stop is
// Connection, a reply that cannot be decoded is Malformed. The API key
// never appears in an error.
//
// With Config.Stream the call uses server-sent events and accumulates them
// into one reply; a tool call cut off by max_tokens keeps its partial input
// as it was streamed.
//
//	m, err := anthropic.New(anthropic.Config{Stream: true}) // key from $ANTHROPIC_API_KEY
//	if err != nil {
//		return err
//	}
//	resp, err := m.Generate(ctx, &llm.Request{
//		System:   "You are terse.",
//		Messages: []llm.Message{llm.UserText("Say hello.")},
//	})
package anthropic
