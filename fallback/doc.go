// Package fallback makes a model call again on a second model when the
// first cannot answer it: pydantic-ai's FallbackModel, eino's failover and
// the Claude SDK's fallback_model, with the failures that send a call
// there named and the primary rested, not hammered.
//
// A call goes to the fallback when the primary's retries ran out on a
// timing failure (overload, 5xx, a rate limit, a timeout, a dropped
// connection: the classes llm.Class.Retryable names), when the circuit
// breaker of the primary's endpoint is open or the call's failure opened
// it (a *breaker.UnavailableError: the primary's retry layer does not
// wait on it when there is a fallback, package callstack), or when the
// primary answered empty twice in a row (no text and no tool call: the silent
// failure of seed 003, which counts nothing unless it is counted). A
// quota or spend-limit failure falls back only with Config.OnQuota; an
// auth failure, a bad request, a budget refusal and a cancelled call
// never do: they say something about the request or the account that
// another model will not change.
//
// After a failure sends a call to the fallback, the primary rests until
// its last Retry-After has passed (or, for an open breaker, until its
// cool-off ends; Config.Cooldown, 60 s by default, when it named none): the calls in between go straight to the fallback,
// and the first call after it tries the primary again.
//
// Each of the two models is given already behind its own retry layer
// (and, in a run, its own budget meter and pacing), so the fallback
// composes like failsafe-go's policies: fallback(retry(primary),
// retry(second)).
//
//	m := fallback.New(retry.Wrap(primary, p), retry.Wrap(second, p), fallback.Config{
//		Primary: "claude-sonnet-5-5", Fallback: "gpt-6-luna",
//		OnFallback: func(e fallback.Event) { log.Print(e.Line()) },
//	})
package fallback
