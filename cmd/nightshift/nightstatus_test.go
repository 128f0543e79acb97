package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/ledger"
)

// nightEvents are a night's events as the scheduler and a builder run
// emit them: a step starts, the run takes two turns, the step is recorded,
// a failure, a note, the night ends.
func nightEvents() []event.Event {
	at := time.Date(2025, 10, 21, 23, 50, 0, 0, time.UTC)
	end := time.Date(2025, 10, 22, 6, 0, 0, 0, time.UTC)
	return []event.Event{
		{TS: at, Run: "2025-10-21", Type: "night", Detail: "night=2025-10-21 window=22:00..06:00"},
		{TS: at, Run: "2025-10-21", Type: "step-start", Detail: `builder/b1 task=3 "a chart of the tides" 5/14`,
			Data: map[string]any{"role": ledger.Builder, "worker": "b1", "task": int64(3), "title": "a chart of the tides", "n": 5, "ceiling": 14,
				"tokens": int64(12000), "window_end": end}},
		{TS: at.Add(time.Minute), Run: "run-1", Step: 1, Type: "turn", Detail: "tool_use=write_file"},
		{TS: at.Add(2 * time.Minute), Run: "run-1", Step: 2, Type: "turn", Detail: "end_turn"},
		{TS: at.Add(3 * time.Minute), Run: "run-1", Step: 2, Type: "outcome", Detail: "done steps=2"},
		{TS: at.Add(3 * time.Minute), Run: "2025-10-21", Type: "step", Detail: "builder/b1 task=3 finished done",
			Data: map[string]any{"role": ledger.Builder, "state": ledger.Finished, "tokens": int64(345)}},
		{TS: at.Add(10 * time.Minute), Run: "2025-10-21", Type: "failure", Detail: "task empty-answer: an empty answer"},
		{TS: at.Add(10 * time.Minute), Run: "2025-10-21", Type: "step", Detail: "builder/b1 task=4 failed unverified",
			Data: map[string]any{"role": ledger.Builder, "state": ledger.StepFailed, "tokens": int64(55)}},
		{TS: at.Add(11 * time.Minute), Run: "2025-10-21", Type: "night-end", Detail: "ceilings-reached: the builder reached its ceiling of 14 steps"},
	}
}

func TestTheNightsStatusLine(t *testing.T) {
	t.Run("off a terminal every event is a line, as the text sink writes it", func(t *testing.T) {
		var got, want bytes.Buffer
		s, text := newNightStatus(&got, false), event.NewText(&want)
		for _, e := range nightEvents() {
			s.Emit(e)
			text.Emit(e)
		}
		s.end()
		if diff := cmp.Diff(want.String(), got.String()); diff != "" {
			t.Errorf("lines (-want +got):\n%s", diff)
		}
	})
	t.Run("on a terminal one status line is redrawn in place, the lines to read printed above it", func(t *testing.T) {
		var out bytes.Buffer
		s := newNightStatus(&out, true)
		for _, e := range nightEvents() {
			s.Emit(e)
		}
		s.end()
		// What a terminal shows: each \r\x1b[K clears the line.
		var screen []string
		for _, line := range strings.Split(out.String(), "\n") {
			parts := strings.Split(line, "\r\x1b[K")
			screen = append(screen, parts[len(parts)-1])
		}
		want := []string{
			"[night · night=2025-10-21 window=22:00..06:00]",
			"[failure · task empty-answer: an empty answer]",
			"[step · builder/b1 task=4 failed unverified]",
			"[night-end · ceilings-reached: the builder reached its ceiling of 14 steps]",
			"",
		}
		if diff := cmp.Diff(want, screen); diff != "" {
			t.Errorf("the terminal's lines (-want +got):\n%s", diff)
		}
		for _, status := range []string{
			`night 2025-10-21 · builder/b1 · task 3 "a chart of the tides" · step 5 of 14 · 12,000 tokens · 6h10m left`,
			`night 2025-10-21 · builder/b1 · task 3 "a chart of the tides" · step 5 of 14 · turn 2 · 12,000 tokens · 6h8m left`,
			// The step is recorded: its tokens count, and no line says so.
			`night 2025-10-21 · builder/b1 · task 3 "a chart of the tides" · step 5 of 14 · turn 2 · 12,345 tokens · 6h7m left`,
		} {
			if !strings.Contains(out.String(), "\r\x1b[K"+status) {
				t.Errorf("the status line never read %q:\n%q", status, out.String())
			}
		}
		if strings.Contains(out.String(), "[turn ·") || strings.Contains(out.String(), "finished done]") {
			t.Errorf("a routine event got a line of its own:\n%q", out.String())
		}
	})
}
