package report

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
)

// Timeline geometry. The axis is the night's real span (Timeline.From to
// To), not its window: a night cut short three minutes in is drawn
// across its ten minutes, with a note of the window it did not use.
const (
	tlWidth  = 960.0
	tlLabel  = 180.0 // the worker labels' column
	tlRight  = 16.0
	tlTop    = 44.0 // the hour labels and the end's label
	tlLaneH  = 22.0 // one lane of marks: a glyph above a bar
	tlPad    = 6.0  // above and below a row's lanes
	tlBarH   = 11.0
	tlBottom = 26.0 // the window's note
	tlMinW   = 3.0  // the narrowest mark drawn
	tlGap    = 2.0  // between a step's mark and the next one's
	tlLanes  = 4    // the most lanes a row stacks overlapping marks in
)

type timelineView struct {
	W, H, X0, X1, Top, Bottom float64
	Hours                     []tick
	Rows                      []rowView
	Marks                     int
	// End is the night's end; Window the window's ends within the
	// axis; Note says what of the window the axis leaves out.
	End    *vline
	Window []vline
	Note   *tick
	// Stops are the system stops it was resumed after, Idle the
	// stretches it sat idle waiting for a person (bands across rows).
	Stops []band
	Idle  []band
	// Crowded counts the marks drawn where another lies: the night's
	// list of steps has them all.
	Crowded int
	Label   string
}

type tick struct {
	X, Y  float64
	Label string
}

type rowView struct {
	Y, H, BarY   float64
	Role, Worker string
	// First is set on a role's first row, which carries the role's name
	// and its steps against its ceiling.
	First   bool
	Ceiling string
	Marks   []markView
	Steps   int
	// Spans are the row's stretches that are no step: a worker sitting
	// out, a task waiting for a person (on the row of waits).
	Spans []band
	// Waits marks the row of the tasks waiting for a person.
	Waits bool
}

type markView struct {
	X, Y, W, H float64
	Outcome    Outcome
	// Glyph is the outcome's shape, drawn above the mark (none for done).
	Glyph string
	Title string
	Task  int64
	Lane  int
}

type vline struct {
	X, Y1, Y2 float64
	Label     string
	Anchor    string
}

type band struct {
	X, W, Y, H float64
	Kind       string
	Title      string
	Task       int64
}

// timelineSVG lays a night's timeline out.
func timelineSVG(t Timeline) timelineView {
	loc := t.Location()
	v := timelineView{W: tlWidth, X0: tlLabel, X1: tlWidth - tlRight, Top: tlTop, Marks: t.Marks()}
	from, to := t.From, t.To
	if !to.After(from) {
		from, to = t.WindowStart, t.WindowEnd
	}
	if !to.After(from) {
		to = from.Add(MinSpan)
	}
	span := to.Sub(from)
	x := func(at time.Time) float64 {
		f := float64(at.Sub(from)) / float64(span)
		return v.X0 + math.Max(0, math.Min(1, f))*(v.X1-v.X0)
	}
	hm := func(at time.Time) string { return at.In(loc).Format("15:04") }
	took := map[ledger.Role]Ceiling{}
	for _, c := range t.Ceilings {
		took[c.Role] = c
	}
	rows := slices.Clone(t.Rows)
	var waits []Span
	for _, s := range t.Spans {
		if s.Kind == WaitingForAPerson {
			waits = append(waits, s)
		}
	}
	y := tlTop
	var prev ledger.Role
	for _, r := range rows {
		rv := rowView{Y: y, Role: string(r.Role), Worker: r.Worker, First: r.Role != prev, Steps: len(r.Marks)}
		if rv.First {
			c := took[r.Role]
			rv.Ceiling = fmt.Sprintf("%d %s", c.Took, plural(c.Took, "step"))
			if c.Ceiling > 0 {
				rv.Ceiling = fmt.Sprintf("%d of %d steps", c.Took, c.Ceiling)
			}
		}
		prev = r.Role
		var lanes []float64 // each lane's right edge so far
		for _, m := range r.Marks {
			end := m.End
			if end.IsZero() {
				end = m.Start
			}
			mx := x(m.Start)
			raw := x(end) - mx
			mw := math.Max(tlMinW, raw)
			if raw-tlGap >= tlMinW {
				// Consecutive steps touch: each stops short of the next.
				mw = raw - tlGap
			}
			if mx+mw > v.X1 {
				mx = v.X1 - mw
			}
			lane, crowded := place(&lanes, mx, mw)
			if crowded {
				v.Crowded++
			}
			rv.Marks = append(rv.Marks, markView{X: mx, W: mw, H: tlBarH, Outcome: m.Outcome, Task: m.Task, Lane: lane,
				Title: fmt.Sprintf("%s–%s · %s", hm(m.Start), hm(end), m.Detail)})
		}
		finishRow(&rv, max(len(lanes), 1))
		for i := range rv.Marks {
			mk := &rv.Marks[i]
			mk.Y = rv.BarY + float64(mk.Lane)*tlLaneH
			mk.Glyph = glyphPath(mk.Outcome, mk.X+mk.W/2, mk.Y-6, 4.5)
		}
		for _, s := range t.Spans {
			if (s.Kind == SittingOut || s.Kind == WaitingForProvider) && s.Role == r.Role && s.Worker == r.Worker {
				a, b := x(s.Start), x(s.End)
				rv.Spans = append(rv.Spans, band{X: a, W: math.Max(2, b-a), Y: rv.Y + 2, H: rv.H - 4, Kind: s.Kind, Title: s.Detail})
			}
		}
		v.Rows = append(v.Rows, rv)
		y += rv.H
	}
	if len(waits) > 0 {
		// A row of its own for the tasks that wait for a person.
		rv := rowView{Y: y, Role: "waiting", Worker: "for a person", First: true, Waits: true,
			Ceiling: fmt.Sprintf("%d %s", len(waits), plural(len(waits), "task"))}
		var lanes []float64
		var placed []int
		for _, s := range waits {
			a, b := x(s.Start), x(s.End)
			w := math.Max(tlMinW, b-a)
			lane, _ := place(&lanes, a, w)
			placed = append(placed, lane)
			rv.Spans = append(rv.Spans, band{X: a, W: w, H: tlBarH, Kind: s.Kind, Title: s.Detail, Task: s.Task})
		}
		finishRow(&rv, max(len(lanes), 1))
		for i := range rv.Spans {
			rv.Spans[i].Y = rv.BarY + float64(placed[i])*tlLaneH
		}
		v.Rows = append(v.Rows, rv)
		y += rv.H
	}
	v.Bottom = y
	v.H = y + tlBottom
	v.Hours = hourTicks(from, to, loc, x)
	for _, s := range t.Stops {
		a, b := x(s.At), x(s.ResumedAt)
		v.Stops = append(v.Stops, band{X: a, W: math.Max(2, b-a), Y: tlTop - 4, H: v.Bottom - tlTop + 4,
			Title: fmt.Sprintf("system stop %s–%s: %s; resumed by %s", hm(s.At), hm(s.ResumedAt), s.Reason, s.Owner)})
	}
	for _, s := range t.Spans {
		if s.Kind == IdleWaiting {
			a, b := x(s.Start), x(s.End)
			v.Idle = append(v.Idle, band{X: a, W: math.Max(2, b-a), Y: tlTop, H: v.Bottom - tlTop, Kind: s.Kind, Title: s.Detail})
		}
	}
	// The window: its ends where the axis has them, and a note for what
	// the axis leaves out.
	if t.WindowStart.After(from) && t.WindowStart.Before(to) {
		v.Window = append(v.Window, vline{X: x(t.WindowStart), Y1: tlTop - 6, Y2: v.Bottom, Label: "window opens " + hm(t.WindowStart), Anchor: "start"})
	}
	if t.WindowEnd.After(from) && t.WindowEnd.Before(to) {
		v.Window = append(v.Window, vline{X: x(t.WindowEnd), Y1: tlTop - 6, Y2: v.Bottom, Label: "window closes " + hm(t.WindowEnd), Anchor: "end"})
	}
	note := fmt.Sprintf("window %s–%s", hm(t.WindowStart), hm(t.WindowEnd))
	if t.WindowEnd.After(to) {
		note += fmt.Sprintf("; the night ended %s before it closed: the axis stops at %s", Human(t.WindowEnd.Sub(to)), hm(to))
	}
	v.Note = &tick{X: v.X1, Y: v.Bottom + 17, Label: note}
	if !t.EndedAt.IsZero() {
		ex := x(t.EndedAt)
		l := &vline{X: ex, Y1: tlTop - 6, Y2: v.Bottom, Label: fmt.Sprintf("ended %s · %s", hm(t.EndedAt), t.End), Anchor: "end"}
		if ex < v.X0+(v.X1-v.X0)/2 {
			l.Anchor = "start"
		}
		v.End = l
	}
	v.Label = fmt.Sprintf("Timeline of the night from %s to %s: %d steps on %d workers' rows", hm(from), hm(to), v.Marks, len(t.Rows))
	return v
}

// place puts a mark from x, w wide, in the first lane where it lies
// clear of the marks before it, opening a lane while there are fewer
// than tlLanes; past that it goes where the lane ends first, crowded.
func place(lanes *[]float64, x, w float64) (lane int, crowded bool) {
	for i, right := range *lanes {
		if x >= right+tlGap/2 {
			(*lanes)[i] = x + w
			return i, false
		}
	}
	if len(*lanes) < tlLanes {
		*lanes = append(*lanes, x+w)
		return len(*lanes) - 1, false
	}
	i := 0
	for j, right := range *lanes {
		if right < (*lanes)[i] {
			i = j
		}
	}
	(*lanes)[i] = math.Max((*lanes)[i], x+w)
	return i, true
}

// finishRow sizes a row for its lanes.
func finishRow(rv *rowView, lanes int) {
	rv.H = 2*tlPad + float64(lanes)*tlLaneH
	rv.BarY = rv.Y + tlPad + tlLaneH - tlBarH - 2
}

// tickEvery is the spacing of a timeline's time labels: at most about
// ten across the span.
func tickEvery(span time.Duration) time.Duration {
	for _, d := range []time.Duration{time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
		30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour} {
		if span/d <= 10 {
			return d
		}
	}
	return 12 * time.Hour
}

// hourTicks are the time labels from from to to: the moments the zone's
// clocks show a multiple of the spacing (every whole hour, say), so that
// on the night the clocks go back 02:00 comes twice, and in a zone half
// an hour off UTC the labels still fall on the hour.
func hourTicks(from, to time.Time, loc *time.Location, x func(time.Time) float64) []tick {
	every := tickEvery(to.Sub(from))
	gran := min(every, 15*time.Minute)
	step := int(every / time.Minute)
	var out []tick
	for at := from.Truncate(gran); !at.After(to); at = at.Add(gran) {
		if at.Before(from) {
			continue
		}
		l := at.In(loc)
		if l.Second() == 0 && (l.Hour()*60+l.Minute())%step == 0 {
			out = append(out, tick{X: x(at), Y: 14, Label: l.Format("15:04")})
		}
	}
	return out
}
