package event

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/internal/terminal"
)

// Event is one thing that happened in a run.
type Event struct {
	// TS is when it happened.
	TS time.Time
	// Run is the run's ID.
	Run string
	// Step is the worker step it belongs to (0 before the first call).
	Step int
	// Type is the event type, for example "retry", "turn", "tool".
	Type string
	// Detail is the human line's text after "type · ".
	Detail string
	// Data holds the type's fields for the JSON form. Keys must not be
	// ts, run, step or type.
	Data map[string]any
}

// Line returns the human form, `[type · detail]`, on one line and safe
// to print on a terminal: a detail holds what a worker controls (a
// command's output in a verify FAIL, a tool's error), so its line
// breaks and every character a terminal would act on are shown escaped
// (terminal.Escape): `[verify · FAIL: …; output tail:\n\x1b[2Jall checks
// passed]` cannot clear the screen, nor print a line of its own. The
// JSON form keeps the detail's data as it is.
func (e Event) Line() string {
	if e.Detail == "" {
		return "[" + terminal.Escape(e.Type) + "]"
	}
	return "[" + terminal.Escape(e.Type) + " · " + terminal.Escape(e.Detail) + "]"
}

// MarshalJSON writes the flat JSON form: ts, run, step, type, then the
// type's fields.
func (e Event) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(e.Data)+4)
	for k, v := range e.Data {
		m[k] = v
	}
	m["ts"] = e.TS.UTC().Format(time.RFC3339Nano)
	m["run"] = e.Run
	m["step"] = e.Step
	m["type"] = e.Type
	return json.Marshal(m)
}

// Sink receives events. Implementations are safe for concurrent use.
type Sink interface {
	Emit(Event)
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(Event)

// Emit calls f.
func (f SinkFunc) Emit(e Event) { f(e) }

// Discard drops every event.
var Discard Sink = SinkFunc(func(Event) {})

type multi []Sink

func (m multi) Emit(e Event) {
	for _, s := range m {
		s.Emit(e)
	}
}

// Multi sends every event to each non-nil sink, in order.
func Multi(sinks ...Sink) Sink {
	var m multi
	for _, s := range sinks {
		if s != nil {
			m = append(m, s)
		}
	}
	return m
}

type writer struct {
	mu   sync.Mutex
	w    io.Writer
	json bool
}

// NewText returns a sink writing one `[type · detail]` line per event.
func NewText(w io.Writer) Sink { return &writer{w: w} }

// NewJSON returns a sink writing one JSON object per line.
func NewJSON(w io.Writer) Sink { return &writer{w: w, json: true} }

func (s *writer) Emit(e Event) {
	var line []byte
	if s.json {
		b, err := json.Marshal(e)
		if err != nil {
			// Data holds only values the emitters build; a marshal
			// failure is a bug, and the line still says so.
			b, _ = json.Marshal(map[string]any{"type": "event-error", "error": err.Error()})
		}
		line = append(b, '\n')
	} else {
		line = []byte(e.Line() + "\n")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.Write(line) //nolint:errcheck // events are best effort; the record keeps them too
}

// Recorder keeps every event in memory, for a run's record and for tests.
type Recorder struct {
	mu     sync.Mutex
	events []Event
}

// Emit appends e.
func (r *Recorder) Emit(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// Events returns a copy of the events so far.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// Types returns the type of each event so far, in order.
func (r *Recorder) Types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.events))
	for i, e := range r.events {
		out[i] = e.Type
	}
	return out
}
