// Package event is the record of what a run did: one Event per retry, turn,
// tool call, verification and outcome. A Sink receives them; the Text sink
// writes the human `[kind · detail]` lines to stderr and the JSON sink
// writes the stable JSON-lines schema documented in docs/events.md.
//
// Each type of a run's events is a constant (Start, Retry, Turn, Tool, ...,
// Outcome; Types lists them) with one constructor, which makes its
// documented fields and its human line; the emitter adds the time, the
// run and the step:
//
//	sink := event.Multi(event.NewText(os.Stderr), event.NewJSON(f))
//	e := event.NewLoop("read_file", 3, false) // [loop · warned: read_file repeated 3 times]
//	e.TS, e.Run, e.Step = time.Now(), runID, step
//	sink.Emit(e)
package event
