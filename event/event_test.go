package event_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/event"
)

func sample() event.Event {
	return event.Event{
		TS:     time.Date(2026, 11, 29, 22, 0, 0, 5, time.UTC),
		Run:    "r1",
		Step:   3,
		Type:   "retry",
		Detail: "status=429 attempt=1 wait=1000ms",
		Data:   map[string]any{"status": 429, "attempt": 1, "wait_ms": 1000},
	}
}

func TestText(t *testing.T) {
	var buf bytes.Buffer
	s := event.NewText(&buf)
	s.Emit(sample())
	s.Emit(event.Event{Type: "outcome"})
	want := "[retry · status=429 attempt=1 wait=1000ms]\n[outcome]\n"
	if buf.String() != want {
		t.Errorf("lines = %q, want %q", buf.String(), want)
	}
}

func TestJSON(t *testing.T) {
	var buf bytes.Buffer
	event.NewJSON(&buf).Emit(sample())
	if !strings.HasSuffix(buf.String(), "\n") || strings.Count(buf.String(), "\n") != 1 {
		t.Fatalf("want one line, got %q", buf.String())
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"ts": "2026-11-29T22:00:00.000000005Z", "run": "r1", "step": 3.0, "type": "retry",
		"status": 429.0, "attempt": 1.0, "wait_ms": 1000.0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON line (-want +got):\n%s", diff)
	}
}

func TestMultiAndRecorder(t *testing.T) {
	var a, b event.Recorder
	s := event.Multi(&a, nil, &b)
	s.Emit(sample())
	s.Emit(event.Event{Type: "outcome"})
	if diff := cmp.Diff([]string{"retry", "outcome"}, a.Types()); diff != "" {
		t.Error(diff)
	}
	if len(b.Events()) != 2 {
		t.Errorf("second sink got %d events", len(b.Events()))
	}
}
