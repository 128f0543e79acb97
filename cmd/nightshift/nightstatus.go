package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/internal/terminal"
	"github.com/nightshift-dev/nightshift/ledger"
)

// nightStatus shows a night's progress on stderr, as batch's progress
// does: on a terminal, one status line redrawn in place (the step being
// worked on: role and worker, task, step k of the role's ceiling, the
// builder's turn, the night's tokens, the time left in the window), with
// the lines a person should read printed above it (failures, notes, the
// steps that did not finish, retries, the night's own lines); elsewhere,
// one line per event, every event.
type nightStatus struct {
	w    io.Writer
	live bool

	mu    sync.Mutex
	night string
	// The step being worked on, from its step-start event.
	role, worker string
	task         int64
	title        string
	k, ceiling   int
	windowEnd    time.Time
	// tokens is the night's tokens: as the last step-start read them, plus
	// the steps recorded since.
	tokens int64
	turn   int
	at     time.Time
	drawn  bool
}

var _ event.Sink = (*nightStatus)(nil)

func newNightStatus(w io.Writer, live bool) *nightStatus { return &nightStatus{w: w, live: live} }

// Emit shows one event of the night.
func (s *nightStatus) Emit(e event.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.live {
		fmt.Fprintln(s.w, e.Line())
		return
	}
	s.at = e.TS
	switch e.Type {
	case "step-start":
		s.night = e.Run
		s.role, s.worker = str(e.Data["role"]), str(e.Data["worker"])
		s.task, _ = e.Data["task"].(int64)
		s.title = str(e.Data["title"])
		s.k, _ = e.Data["n"].(int)
		s.ceiling, _ = e.Data["ceiling"].(int)
		s.tokens, _ = e.Data["tokens"].(int64)
		s.windowEnd, _ = e.Data["window_end"].(time.Time)
		s.turn = 0
	case "step":
		tok, _ := e.Data["tokens"].(int64)
		s.tokens += tok
		if str(e.Data["state"]) != string(ledger.Finished) {
			s.above(e)
		}
	case "night", "night-end", "failure", "note", "recover", "retry", "fallback":
		s.above(e)
	default:
		// The builder's run: its turns, tools, checks and outcome are
		// the status line's turn count, not lines of their own.
		if e.Type == "turn" {
			s.turn = max(s.turn, e.Step)
		}
	}
	if e.Type == "night-end" {
		s.role = ""
	}
	s.redraw()
}

// above prints an event's line above the status line; the caller holds mu.
func (s *nightStatus) above(e event.Event) {
	s.erase()
	fmt.Fprintf(s.w, "%s\n", e.Line())
	s.drawn = false
}

// eraseLine goes back to the start of the line and clears it: the one
// control sequence nightshift writes itself. It goes to the terminal
// under the escaping writer (terminal.Raw); every text goes through it.
const eraseLine = "\r\x1b[K"

// erase clears the status line's row; the caller holds mu.
func (s *nightStatus) erase() { io.WriteString(terminal.Raw(s.w), eraseLine) } //nolint:errcheck // a lost status line is redrawn at the next event

// redraw draws the status line; the caller holds mu.
func (s *nightStatus) redraw() {
	if s.role == "" {
		if s.drawn {
			s.erase()
			s.drawn = false
		}
		return
	}
	s.erase()
	fmt.Fprint(s.w, s.line())
	s.drawn = true
}

// line is the status line: `night 2025-10-21 · builder/b1 · task 3 "a
// chart of the tides" · step 5 of 14 · turn 2 · 12,345 tokens · 3h10m
// left`.
func (s *nightStatus) line() string {
	l := fmt.Sprintf("night %s · %s/%s", s.night, s.role, s.worker)
	if s.task != 0 {
		l += fmt.Sprintf(" · task %d \"%s\"", s.task, clipLine(s.title, 40))
	}
	if s.ceiling > 0 {
		l += fmt.Sprintf(" · step %d of %d", s.k, s.ceiling)
	} else {
		l += fmt.Sprintf(" · step %d", s.k)
	}
	if s.turn > 0 {
		l += fmt.Sprintf(" · turn %d", s.turn)
	}
	l += " · " + thousands(s.tokens) + " tokens"
	if !s.windowEnd.IsZero() {
		if left := s.windowEnd.Sub(s.at).Round(time.Minute); left > 0 {
			l += " · " + strings.TrimSuffix(left.String(), "0s") + " left"
		} else {
			l += " · the window has closed"
		}
	}
	return l
}

// end clears the status line, before the command's own last lines.
func (s *nightStatus) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live && s.drawn {
		s.erase()
		s.drawn = false
	}
}

// clipLine puts s on one line of at most n runes, escaped for a
// terminal: a title is what a proposer wrote.
func clipLine(s string, n int) string {
	s = terminal.Escape(strings.Join(strings.Fields(s), " "))
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case fmt.Stringer:
		return x.String()
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// thousands writes n with thousands separators: 12,345.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}
