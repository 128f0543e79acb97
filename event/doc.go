// Package event is the record of what a run did: one Event per retry, turn,
// tool call, verification and outcome. A Sink receives them; the Text sink
// writes the human `[kind · detail]` lines to stderr and the JSON sink
// writes the stable JSON-lines schema documented in docs/events.md.
//
//	sink := event.Multi(event.NewText(os.Stderr), event.NewJSON(f))
//	sink.Emit(event.Event{Type: "retry", Detail: "status=429 attempt=1 wait=1000ms"})
package event
