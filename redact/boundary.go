package redact

import (
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/gate"
)

// Sink returns a sink that passes each event on to s with its detail and
// the strings in its data redacted. Put it in front of every sink of a
// run (stderr, --events, the run's record), so that none of them sees a
// secret that reached an event: a command's output, a model's answer, an
// error from a provider.
func (r *Redactor) Sink(s event.Sink) event.Sink {
	if r == nil || s == nil {
		return s
	}
	return event.SinkFunc(func(e event.Event) {
		e.Detail = r.String(e.Detail)
		if e.Data != nil {
			e.Data = r.Value(e.Data).(map[string]any)
		}
		s.Emit(e)
	})
}

// Auditor returns an auditor that records each entry in a with its
// summary and reason redacted: a command line can carry a key.
func (r *Redactor) Auditor(a gate.Auditor) gate.Auditor {
	if r == nil || a == nil {
		return a
	}
	return auditor{r, a}
}

type auditor struct {
	r *Redactor
	a gate.Auditor
}

func (x auditor) Record(e gate.Entry) error {
	e.Input = x.r.String(e.Input)
	e.Reason = x.r.String(e.Reason)
	return x.a.Record(e)
}
