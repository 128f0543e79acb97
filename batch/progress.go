package batch

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/internal/terminal"
)

// barWidth is the live bar's width in cells.
const barWidth = 24

// progress reports a batch as it goes: one plain line per finished task,
// or (live) a count and a bar redrawn on one line, with a plain line
// above it for each task that did not end done.
type progress struct {
	w     io.Writer // nil: no progress
	live  bool
	total int
	clock clock.Clock
	start time.Time

	mu                       sync.Mutex
	running, finishedN       int
	done, unverified, failed int
}

func newProgress(w io.Writer, live bool, total int, clk clock.Clock) *progress {
	p := &progress{w: w, live: live, total: total, clock: clk, start: clk.Now()}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.redraw()
	return p
}

// started counts a task that began.
func (p *progress) started() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running++
	p.redraw()
}

// finished reports a task that ended; ran is false for a task the batch
// never started.
func (p *progress) finished(t TaskResult, ran bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ran {
		p.running--
	}
	p.finishedN++
	switch t.Result.Outcome {
	case agent.Done:
		p.done++
	case agent.Unverified:
		p.unverified++
	default:
		p.failed++
	}
	if p.w == nil {
		return
	}
	if !p.live {
		fmt.Fprintln(p.w, p.line(t))
		return
	}
	if t.Result.Outcome != agent.Done {
		p.erase()
		fmt.Fprintf(p.w, "%s\n", p.line(t))
	}
	p.redraw()
}

// line is a finished task's plain line, in the shape of the event lines:
// [batch · 3/20 fix-readme done steps=4 1.2s].
func (p *progress) line(t TaskResult) string {
	s := fmt.Sprintf("[batch · %d/%d %s %s steps=%d %s", p.finishedN, p.total, t.Name, t.Result.Outcome, t.Result.Steps, roundDur(t.Elapsed))
	if t.Result.Outcome != agent.Done && t.Result.Reason != "" {
		s += ": " + oneLine(t.Result.Reason, maxReason)
	}
	return s + "]"
}

// redraw draws the live line; the caller holds mu.
func (p *progress) redraw() {
	if p.w == nil || !p.live {
		return
	}
	fill := 0
	if p.total > 0 {
		fill = p.finishedN * barWidth / p.total
	}
	bar := strings.Repeat("█", fill) + strings.Repeat("░", barWidth-fill)
	p.erase()
	fmt.Fprintf(p.w, "%s %d/%d · running %d · done %d · unverified %d · failed %d · %s",
		bar, p.finishedN, p.total, p.running, p.done, p.unverified, p.failed, roundDur(p.clock.Now().Sub(p.start)))
}

// erase clears the live line's row: the one control sequence the
// progress writes, under the terminal's escaping writer (terminal.Raw);
// its text goes through it. The caller holds mu.
func (p *progress) erase() {
	io.WriteString(terminal.Raw(p.w), "\r\x1b[K") //nolint:errcheck // a lost redraw is redrawn at the next task
}

// end finishes the live line.
func (p *progress) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil && p.live {
		p.redraw()
		fmt.Fprintln(p.w)
	}
}
