package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/nightshift-dev/nightshift/ledger"
)

// The page's charts are SVG written by hand: their geometry is computed
// here, in plain numbers, and page.gohtml only writes it out. Every
// colour is paired with a shape, a pattern or a number, so that the
// charts read in print, in black and white and to a person who does not
// tell the colours apart.

// glyphPath is an outcome's shape centred on (x, y), of half-size s: a
// cross for failed, a triangle for skipped, a diamond for parked, two bars
// for interrupted, a circle for running; done has none (its plain bar).
func glyphPath(o Outcome, x, y, s float64) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	switch o {
	case Failed:
		return "M" + f(x-s) + " " + f(y-s) + "L" + f(x+s) + " " + f(y+s) + "M" + f(x+s) + " " + f(y-s) + "L" + f(x-s) + " " + f(y+s)
	case Skipped:
		return "M" + f(x-s) + " " + f(y-s) + "L" + f(x+s) + " " + f(y) + "L" + f(x-s) + " " + f(y+s) + "Z"
	case Parked:
		return "M" + f(x) + " " + f(y-s) + "L" + f(x+s) + " " + f(y) + "L" + f(x) + " " + f(y+s) + "L" + f(x-s) + " " + f(y) + "Z"
	case Interrupted:
		return "M" + f(x-s/2) + " " + f(y-s) + "L" + f(x-s/2) + " " + f(y+s) + "M" + f(x+s/2) + " " + f(y-s) + "L" + f(x+s/2) + " " + f(y+s)
	case Running:
		return "M" + f(x-s) + " " + f(y) + "a" + f(s) + " " + f(s) + " 0 1 0 " + f(2*s) + " 0a" + f(s) + " " + f(s) + " 0 1 0 " + f(-2*s) + " 0"
	}
	return ""
}

// Trend charts: one column per night, the nights across.
const (
	chLeft   = 120.0 // the y labels' or the rows' names' column
	chRight  = 64.0  // the rows' totals
	chTop    = 22.0
	chLabels = 44.0 // the nights' names under the columns
)

type chartView struct {
	ID, Label       string
	W, H            float64
	Left, Right, X1 float64
	// Zeros writes a dot in a grid's empty cells.
	Zeros            bool
	Top, Bottom      float64
	ColW             float64
	Cols             []colView
	YTicks           []tick
	Rows             []chartRow
	Rotate           bool
	Empty            string
	Caption, Summary string
}

type colView struct {
	X, CX float64 // left edge and centre
	// BarX and BarX1 are a bar's left and right edges.
	BarX, BarX1 float64
	Rotate      bool
	Night       string
	Label       string
	LabelY      float64
	// A bar chart's stacked segments and total.
	Segs   []segView
	Total  string
	N      int64
	TotalY float64
	// USD is a cost column's known dollars, for the page's data.
	USD string
	// A ceiling's tick, when the night had one.
	Ceiling  bool
	CeilingY float64
	Title    string
}

type segView struct {
	X, W, CX float64
	Y, H     float64
	Class    string
	Title    string
	Count    int
	TextY    float64
	Inside   bool
}

// chartRow is a row of a grid chart (the ends, the failures by scope).
type chartRow struct {
	Y, CY, H float64
	Name     string
	Class    string
	Total    int
	Cells    []cellView
}

type cellView struct {
	X, CX, W float64
	Y, H     float64
	TextY    float64
	N        int
	Mark     string // a shape's path, for the ends chart
	Heat     float64
	Title    string
	Night    string
}

// columns sets a chart's width and its nights' columns.
func columns(c *chartView, trend []Point, plotH float64) {
	n := max(len(trend), 1)
	c.ColW = math.Max(24, math.Min(64, 800/float64(n)))
	c.Left, c.Right, c.Top = chLeft, chRight, chTop
	c.W = c.Left + float64(n)*c.ColW + c.Right
	c.X1 = c.W - c.Right
	c.Rotate = c.ColW < 44
	c.Bottom = c.Top + plotH
	labels := chLabels
	if c.Rotate {
		labels = 56
	}
	c.H = c.Bottom + labels
	// Long ranges name every night in its column's title, but label
	// one column in seven under the axis, to stay readable.
	every := 1
	if n > 60 {
		every = 7
	}
	for i, p := range trend {
		x := c.Left + float64(i)*c.ColW
		label := p.Night
		if len(label) == len("2006-01-02") {
			label = label[5:]
		}
		if i%every != 0 && i != len(trend)-1 {
			label = ""
		}
		c.Cols = append(c.Cols, colView{X: x, CX: x + c.ColW/2, BarX: x + c.ColW*0.18, BarX1: x + c.ColW*0.82,
			Night: p.Night, Label: label, LabelY: c.Bottom + 16, Rotate: c.Rotate})
	}
	if len(trend) == 0 {
		c.Empty = "No night in the ledger yet."
	}
}

// stepsChart stacks each night's builder steps by outcome, the total on
// top and the builder's ceiling ticked.
func stepsChart(trend []Point, ceilings []int) chartView {
	c := chartView{ID: "trend-steps", Caption: "Builder steps finished per night",
		Summary: "The builder's steps that finished each night, split by how they ended; the dashed tick is the night's ceiling."}
	const plotH = 170.0
	columns(&c, trend, plotH)
	top := 1
	for i, p := range trend {
		top = max(top, p.Steps, ceilings[i])
	}
	top = niceMax(top)
	y := func(v int) float64 { return c.Bottom - float64(v)/float64(top)*plotH }
	for _, v := range yTicks(top) {
		c.YTicks = append(c.YTicks, tick{X: c.Left - 8, Y: y(v), Label: strconv.Itoa(v)})
	}
	for i, p := range trend {
		col := &c.Cols[i]
		at := 0
		for _, o := range []Outcome{Done, Skipped, Failed, Parked} {
			k := p.Builder[o]
			if k == 0 {
				continue
			}
			s := segView{X: col.BarX, W: col.BarX1 - col.BarX, CX: col.CX, Y: y(at + k), H: y(at) - y(at+k), Class: string(o), Count: k,
				Title: fmt.Sprintf("%s: %d %s %s", p.Night, k, plural(k, "step"), o)}
			s.TextY = s.Y + s.H/2 + 4
			s.Inside = s.H >= 14 && c.ColW >= 20
			col.Segs = append(col.Segs, s)
			at += k
		}
		col.Total, col.N, col.TotalY = strconv.Itoa(p.Steps), int64(p.Steps), y(p.Steps)-5
		if ceilings[i] > 0 {
			col.Ceiling, col.CeilingY = true, y(ceilings[i])
		}
		col.Title = fmt.Sprintf("%s: %d builder steps finished (%d done, %d skipped, %d failed, %d parked)", p.Night, p.Steps,
			p.Builder[Done], p.Builder[Skipped], p.Builder[Failed], p.Builder[Parked])
	}
	c.Label = "Builder steps finished per night"
	return c
}

// endsChart keeps the two early ends apart, a row each: the nights cut
// short (a triangle), the nights out of work (a circle), and the nights
// that ran to their window's end or their ceilings (a square).
func endsChart(trend []Point) chartView {
	c := chartView{ID: "trend-ends", Caption: "How each night ended: cut short and out of work, kept apart",
		Summary: "Nights that ended before the clock ran out, as two: a night cut short says failure handling stopped work that was there; a night out of work only that the backlog ran dry. A night that sat idle for a person's answer until its window closed has a row of its own."}
	const rowH = 30.0
	columns(&c, trend, 4*rowH)
	rows := []struct {
		name, class string
		in          func(Point) bool
	}{
		{"cut short", "cut", func(p Point) bool { return p.CutShort }},
		{"out of work", "out", func(p Point) bool { return p.OutOfWork }},
		// Idle until the window closed, for a person's answer: the clock
		// ran out, and the night did no work in what was left of it.
		{"waiting for a person", "wait", func(p Point) bool { return p.EndedWaiting && !p.CutShort && !p.OutOfWork }},
		{"to the end", "full", func(p Point) bool { return !p.CutShort && !p.OutOfWork && !p.EndedWaiting }},
	}
	for i, r := range rows {
		y := c.Top + float64(i)*rowH
		row := chartRow{Y: y, CY: y + rowH/2, H: rowH, Name: r.name, Class: r.class}
		for j, p := range trend {
			cell := cellView{X: c.Cols[j].X, CX: c.Cols[j].CX, W: c.ColW, Y: y, H: rowH, Night: p.Night}
			if r.in(p) {
				row.Total++
				cell.N = 1
				cell.Mark = endMark(r.class, cell.CX, row.CY, 7)
				end := string(p.End)
				if end == "" {
					end = "still running"
				}
				cell.Title = fmt.Sprintf("%s: %s (%s): %s", p.Night, r.name, end, p.Reason)
			}
			row.Cells = append(row.Cells, cell)
		}
		c.Rows = append(c.Rows, row)
	}
	c.Label = fmt.Sprintf("How each night ended: %d cut short, %d out of work, %d waiting for a person, %d to the end",
		c.Rows[0].Total, c.Rows[1].Total, c.Rows[2].Total, c.Rows[3].Total)
	return c
}

// endMark is a row's shape: a triangle, a circle, a diamond or a square.
func endMark(class string, x, y, s float64) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	switch class {
	case "cut":
		return "M" + f(x) + " " + f(y-s) + "L" + f(x+s) + " " + f(y+s*0.8) + "L" + f(x-s) + " " + f(y+s*0.8) + "Z"
	case "out":
		return "M" + f(x-s) + " " + f(y) + "a" + f(s) + " " + f(s) + " 0 1 0 " + f(2*s) + " 0a" + f(s) + " " + f(s) + " 0 1 0 " + f(-2*s) + " 0"
	case "wait":
		return "M" + f(x) + " " + f(y-s) + "L" + f(x+s) + " " + f(y) + "L" + f(x) + " " + f(y+s) + "L" + f(x-s) + " " + f(y) + "Z"
	}
	s *= 0.7
	return "M" + f(x-s) + " " + f(y-s) + "h" + f(2*s) + "v" + f(2*s) + "h" + f(-2*s) + "Z"
}

// failuresChart is a grid: a row per scope, a column per night, the
// count written in each cell and shaded by it.
func failuresChart(trend []Point) chartView {
	c := chartView{ID: "trend-failures", Caption: "Failures by scope per night", Zeros: true,
		Summary: "Each failure is charged to the smallest thing known to be broken: the call, the task, the worker, the night or the system."}
	const rowH = 24.0
	columns(&c, trend, float64(len(ledger.Scopes)+1)*rowH)
	top := 1
	for _, p := range trend {
		for _, k := range p.Failures {
			top = max(top, k)
		}
	}
	scopes := append(slices.Clone(ledger.Scopes), byHandRow)
	for i, s := range scopes {
		y := c.Top + float64(i)*rowH
		row := chartRow{Y: y, CY: y + rowH/2, H: rowH, Name: string(s), Class: string(s)}
		for j, p := range trend {
			k := p.Failures[s]
			if s == byHandRow {
				k = p.ByHandAfter
			}
			row.Total += k
			cell := cellView{X: c.Cols[j].X + 1, CX: c.Cols[j].CX, W: c.ColW - 2, Y: y + 1, H: rowH - 2, TextY: y + rowH/2 + 4, N: k, Night: p.Night,
				Title: fmt.Sprintf("%s: %d %s-scope %s", p.Night, k, s, plural(k, "failure"))}
			if s == byHandRow {
				cell.Title = fmt.Sprintf("%s: %d %s recorded by hand after the night, between nights", p.Night, k, plural(k, "failure"))
			}
			if k > 0 {
				cell.Heat = 0.2 + 0.45*float64(k)/float64(top)
			}
			row.Cells = append(row.Cells, cell)
		}
		c.Rows = append(c.Rows, row)
	}
	total := 0
	for _, r := range c.Rows {
		total += r.Total
	}
	c.Label = fmt.Sprintf("Failures by scope per night: %d in all", total)
	return c
}

// byHandRow is the failures chart's row of the failures a person
// recorded between nights, each under the night before it.
const byHandRow ledger.Scope = "by hand, after"

// costChart draws each night's cost as a bar: a night with an unknown
// cost shows its known part, hatched, with "≥" and "?" in its figure.
func costChart(trend []Point) chartView {
	c := chartView{ID: "trend-cost", Caption: "Cost per night",
		Summary: "What each night's steps cost by the model table; a hatched bar is a night some step of which had no price: its cost is at least the bar, never $0."}
	const plotH = 110.0
	columns(&c, trend, plotH)
	top := 0.0
	for _, p := range trend {
		top = math.Max(top, p.KnownUSD)
	}
	topUSD := niceUSD(top)
	y := func(v float64) float64 { return c.Bottom - v/topUSD*plotH }
	for _, v := range []float64{0, topUSD / 2, topUSD} {
		c.YTicks = append(c.YTicks, tick{X: c.Left - 8, Y: y(v), Label: usdLabel(v)})
	}
	for i, p := range trend {
		col := &c.Cols[i]
		class, total := "cost", centsLabel(p.KnownUSD)
		if _, ok := p.Cost.USD(); !ok {
			class, total = "cost unknown", "≥"+total+"?"
		}
		col.Segs = []segView{{X: col.BarX, W: col.BarX1 - col.BarX, CX: col.CX, Y: y(p.KnownUSD), H: c.Bottom - y(p.KnownUSD), Class: class,
			Title: fmt.Sprintf("%s: cost %s", p.Night, shortCost(p))}}
		col.Total, col.TotalY, col.USD = total, y(p.KnownUSD)-5, strconv.FormatFloat(p.KnownUSD, 'f', 6, 64)
		col.Title = col.Segs[0].Title
	}
	c.Label = "Cost per night"
	return c
}

// niceUSD rounds a cost chart's top up: $0.01, $0.02, $0.05, $0.10, ...
func niceUSD(v float64) float64 {
	for m := 0.01; ; m *= 10 {
		for _, k := range []float64{1, 2, 5} {
			if v <= k*m {
				return k * m
			}
		}
	}
}

// usdLabel writes dollars for a chart: $0.0035, $0.12, $3.40, $120.
func usdLabel(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("$%.0f", v)
	case v >= 1:
		return fmt.Sprintf("$%.2f", v)
	case v == 0:
		return "$0"
	case v >= 0.1:
		return fmt.Sprintf("$%.2f", v)
	}
	return fmt.Sprintf("$%.4f", v)
}

// centsLabel writes a night's cost over its column, short enough for a
// narrow one: 35¢, 2.7¢, 0.35¢, $1.2 (the column's title has it to four
// places).
func centsLabel(v float64) string {
	c := v * 100
	switch {
	case v >= 1:
		return fmt.Sprintf("$%.1f", v)
	case c >= 10:
		return fmt.Sprintf("%.0f¢", c)
	case c >= 1:
		return fmt.Sprintf("%.1f¢", c)
	case c > 0:
		return fmt.Sprintf("%.2f¢", c)
	}
	return "0"
}

// tokensChart draws each night's tokens as a bar, the figure on top.
func tokensChart(trend []Point) chartView {
	c := chartView{ID: "trend-tokens", Caption: "Tokens and cost per night",
		Summary: "Every role's tokens, input and output, as the ledger recorded them per step; each bar's title has the night's cost by the model table (unknown when a step had no price)."}
	const plotH = 110.0
	columns(&c, trend, plotH)
	var top int64 = 1
	for _, p := range trend {
		top = max(top, p.Tokens)
	}
	topN := niceMax64(top)
	y := func(v int64) float64 { return c.Bottom - float64(v)/float64(topN)*plotH }
	for _, v := range []int64{0, topN / 2, topN} {
		c.YTicks = append(c.YTicks, tick{X: c.Left - 8, Y: y(v), Label: short(v)})
	}
	for i, p := range trend {
		col := &c.Cols[i]
		col.Segs = []segView{{X: col.BarX, W: col.BarX1 - col.BarX, CX: col.CX, Y: y(p.Tokens), H: c.Bottom - y(p.Tokens), Class: "tokens",
			Title: fmt.Sprintf("%s: %d tokens, cost %s", p.Night, p.Tokens, shortCost(p))}}
		col.Total, col.N, col.TotalY = short(p.Tokens), p.Tokens, y(p.Tokens)-5
		col.Title = col.Segs[0].Title
	}
	c.Label = "Tokens and cost per night"
	return c
}

// niceMax rounds a chart's top up to a round number.
func niceMax(v int) int {
	for _, n := range []int{5, 10, 15, 20, 25, 30, 40, 50, 60, 80, 100} {
		if v <= n {
			return n
		}
	}
	return int(niceMax64(int64(v)))
}

func niceMax64(v int64) int64 {
	if v <= 10 {
		return 10
	}
	p := int64(math.Pow(10, math.Floor(math.Log10(float64(v)))))
	for _, m := range []int64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// yTicks are the labelled values of an axis from 0 to top.
func yTicks(top int) []int {
	step := top / 5
	if top <= 10 {
		step = max(top/5, 1)
		if top%5 != 0 {
			step = 1
		}
	}
	var out []int
	for v := 0; v <= top; v += step {
		out = append(out, v)
	}
	return out
}

// short writes a count for a chart: 950, 12k, 1.2M.
func short(v int64) string {
	switch {
	case v >= 1_000_000:
		return strings.TrimSuffix(strconv.FormatFloat(float64(v)/1e6, 'f', 1, 64), ".0") + "M"
	case v >= 10_000:
		return strconv.FormatInt((v+500)/1000, 10) + "k"
	case v >= 1000:
		return strings.TrimSuffix(strconv.FormatFloat(float64(v)/1e3, 'f', 1, 64), ".0") + "k"
	}
	return strconv.FormatInt(v, 10)
}

// legend is the outcomes a chart shows, in the legend's order.
func legend(outcomes ...Outcome) []legendItem {
	var out []legendItem
	for _, o := range outcomes {
		out = append(out, legendItem{Outcome: o, Glyph: glyphPath(o, 27, 8, 4.5), Text: outcomeText[o]})
	}
	return out
}

type legendItem struct {
	Outcome Outcome
	Glyph   string
	Text    string
}

var outcomeText = map[Outcome]string{
	Done:        "done",
	Skipped:     "skipped: failed, charged to its task (skipped tonight)",
	Failed:      "failed: charged to the worker, the night or the system",
	Parked:      "parked: waiting for a person",
	Interrupted: "interrupted: continued or retried",
	Running:     "running",
}
