// Package breaker is the circuit breaker of an endpoint under one
// credential, shared by every run of the process and, through a file in
// the state directory's limits folder, by every nightshift process of the
// machine (issue 26).
//
// A provider that is down is one failure, not a thousand: after a run of
// outage failures (a failed connection, a 5xx, a 529) across all its
// callers, the breaker opens and no caller calls the endpoint until its
// cool-off ends; then exactly one caller probes (half-open), and its
// success closes the breaker for all, its failure opens it again. The
// retry layer (package retry, Policy.Breaker) waits on an open breaker
// within the retry budget; past it the call fails with an
// *UnavailableError, which a run ends on as paused (outcome unavailable),
// not failed. A call with a fallback model does not wait (Policy.FailOnOpen):
// the fallback, on its own endpoint's breaker, takes it.
//
// The state is one per endpoint and credential; the threshold and the
// cool-off are each caller's (Breaker.With, Breakers.For), applied to its
// own calls: a call's outage failure opens the breaker when the failures
// in a row, across every caller, reach that call's threshold, for that
// call's cool-off; once open it is open for all. A batch's tasks and a
// pipeline's roles with breaker: keys of their own share one breaker this
// way, as separate processes with their own flags share its file.
//
//	brs := breaker.NewBreakers(dir, nil)
//	b := brs.For(key.Endpoint(), key.Credential, breaker.Config{Failures: 5, Cool: 30 * time.Second})
//	t, waited, err := b.Admit(ctx, budget, emit) // waits while open
//	resp, err := model.Generate(ctx, req)
//	t.Record(err, emit)
package breaker
