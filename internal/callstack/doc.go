// Package callstack is the one composer of a model call's layers, in one
// order, for every model call nightshift makes: the worker's, the
// judge's, a sub-agent's, a compaction summary's (all through the run's
// worker model), and the night's proposer and judge.
//
// The order, from the model out:
//
//		observe( fallback( meter( retry(model) ), meter( retry(second) ) ) )
//
//	  - retry is innermost: a 429 is waited out, a 5xx retried, each attempt
//	    paced by the credential's limiter, before anything above sees the
//	    call (package retry);
//	  - the meter counts what the call spent and refuses, before it is made,
//	    a call that would cross the budget: once per call, not once per
//	    attempt (package budget);
//	  - the fallback takes a call whose retries ran out on a timing failure,
//	    that met the primary's endpoint's circuit breaker open (the
//	    primary's retry layer does not wait on it when there is a
//	    fallback) or that was answered empty twice, on its own retry
//	    layer, limiter, breaker and price, and rests the primary (package
//	    fallback);
//	  - observe is outermost: a trace's span covers the whole call, its
//	    retries and its fallback included.
//
// A layer left out of Config is left out of the stack.
//
//	m := callstack.Build(callstack.Config{Model: client, Retry: policy, Meter: meter, Price: price})
package callstack
