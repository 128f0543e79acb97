package report

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/ledger"
)

// HTML writes the report as one page that stands on its own: what needs a
// person first, the last night's timeline, the trend charts across nights
// and every night's account, with inline SVG and CSS only (no request
// leaves the page), readable in dark mode and in print.
//
// The page is written by page.go, Go translated from the html/template
// testdata/page.gohtml and byte for byte what that template writes
// (TestThePageIsTheTemplatesPage). A binary that can execute a template
// keeps every exported method of every type it links, since the linker
// cannot tell which one a template names (issue 23, item 10).
func (r *Report) HTML(w io.Writer) error {
	pw := &pageWriter{w: bufio.NewWriterSize(w, 32<<10)}
	pw.page(r.view())
	if pw.err == nil {
		pw.err = pw.w.Flush()
	}
	return pw.err
}

// pageWriter writes the page, keeping the first error.
type pageWriter struct {
	w   *bufio.Writer
	err error
}

// s writes the page's own text.
func (w *pageWriter) s(text string) {
	if w.err == nil {
		_, w.err = w.w.WriteString(text)
	}
}

// v writes a value as html/template writes one in text, in a quoted
// attribute and in a title: as fmt.Sprint prints it, escaped.
func (w *pageWriter) v(x any) {
	s, ok := x.(string)
	if !ok {
		if reflect.ValueOf(x).Kind() == reflect.Func {
			panic("report: the page writes a method value, not its result") // a translation's mistake
		}
		s = fmt.Sprint(x)
	}
	if w.err != nil {
		return
	}
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case 0:
			esc = "\uFFFD"
		case '"':
			esc = "&#34;"
		case '&':
			esc = "&amp;"
		case '\'':
			esc = "&#39;"
		case '+':
			esc = "&#43;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		default:
			continue
		}
		w.w.WriteString(s[last:i]) //nolint:errcheck // bufio keeps its error for Flush
		w.w.WriteString(esc)       //nolint:errcheck
		last = i + 1
	}
	_, w.err = w.w.WriteString(s[last:])
}

// truth is text/template's truth of a value, for {{if}} and {{with}}:
// false for false, 0, a nil pointer and an empty string, slice or map.
func truth(x any) bool {
	switch x := x.(type) {
	case bool:
		return x
	case string:
		return x != ""
	case int:
		return x != 0
	case int64:
		return x != 0
	case float64:
		return x != 0
	}
	v := reflect.ValueOf(x)
	switch v.Kind() {
	case reflect.Invalid:
		return false
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() > 0
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() != 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() != 0
	case reflect.Float32, reflect.Float64:
		return v.Float() != 0
	case reflect.Pointer, reflect.Interface, reflect.Chan:
		return !v.IsNil()
	case reflect.Struct:
		return true
	}
	panic("report: the page tests a " + v.Kind().String()) // a translation's mistake
}

// The page's functions f and hm.
func ff(v float64) string                       { return strconv.FormatFloat(v, 'f', 1, 64) }
func hm(t time.Time, loc *time.Location) string { return t.In(loc).Format("15:04") }

// pageView is what the page writes.
type pageView struct {
	R     *Report
	Loc   *time.Location
	Made  string
	Range string
	Needs Needs
	// Items are what needs a person, the most urgent first; Record the
	// parked actions nobody need answer.
	Items  []Item
	Record []parkedView
	// Last is the latest night, its timeline drawn large; Nights are the
	// others, newest first.
	Last   *nightView
	Nights []nightView
	Steps  chartView
	Ends   chartView
	Fails  chartView
	Tokens chartView
	Cost   chartView
	// The headline numbers: seed 003's two.
	LastSteps, Median int
	TrendLegend       []legendItem
}

type parkedView struct {
	ParkedAction
	Action string
}

type nightView struct {
	N        Night
	Loc      *time.Location
	Counts   string
	Ceilings string
	Timeline timelineView
	// Legend is the timelines' legend, drawn once, under the last
	// night's.
	Legend []legendItem
	Scopes string
	Checks string
	Open   bool
	// StepList is every step in the order it started, for the marks
	// the timeline draws over one another.
	StepList []stepRow
}

// stepRow is a step in a night's list.
type stepRow struct {
	From, To     string
	Role, Worker string
	Task         int64
	Title        string
	Outcome      Outcome
	Detail       string
	Start        int64
}

func (r *Report) view() pageView {
	loc := r.Location()
	v := pageView{R: r, Loc: loc, Made: r.At.In(loc).Format("2006-01-02 15:04 MST"), Needs: r.Needs}
	if len(r.Nights) > 0 {
		v.Range = r.Nights[0].Name
		if len(r.Nights) > 1 {
			v.Range += " – " + r.Nights[len(r.Nights)-1].Name
		}
	}
	v.Items = r.Needs.Items
	if v.Items == nil {
		v.Items = r.Needs.items(r.At, loc)
	}
	for _, p := range r.Needs.Parked {
		if p.counted() {
			continue
		}
		// The action is what a model asked to run: shown escaped, so that
		// what a person approves is what will run (issue 11).
		v.Record = append(v.Record, parkedView{ParkedAction: p, Action: gate.Escape(p.Action)})
	}
	for i := len(r.Nights) - 1; i >= 0; i-- {
		nv := nightOf(r.Nights[i])
		if v.Last == nil {
			// One legend, under the last night's timeline, serves every
			// night's: it names every outcome and span.
			nv.Open, nv.Legend = true, legend(Outcomes...)
			v.Last = &nv
			continue
		}
		v.Nights = append(v.Nights, nv)
	}
	ceilings := make([]int, len(r.Trend))
	for i, n := range r.Nights {
		for _, c := range n.Timeline.Ceilings {
			if c.Role == ledger.Builder {
				ceilings[i] = c.Ceiling
			}
		}
	}
	v.Steps, v.Ends, v.Fails, v.Tokens = stepsChart(r.Trend, ceilings), endsChart(r.Trend), failuresChart(r.Trend), tokensChart(r.Trend)
	v.Cost = costChart(r.Trend)
	v.TrendLegend = legend(Done, Skipped, Failed, Parked)
	if len(r.Trend) > 0 {
		v.LastSteps = r.Trend[len(r.Trend)-1].Steps
		var all []int
		for _, p := range r.Trend {
			all = append(all, p.Steps)
		}
		sort.Ints(all)
		v.Median = all[len(all)/2]
	}
	return v
}

func nightOf(n Night) nightView {
	nv := nightView{N: n, Loc: n.Timeline.Location(), Timeline: timelineSVG(n.Timeline),
		Scopes: scopesText(n.ByScope)}
	nv.Counts = builderCounts(n)
	loc := nv.Loc
	for _, row := range n.Timeline.Rows {
		for _, m := range row.Marks {
			end := m.End
			if end.IsZero() {
				end = m.Start
			}
			nv.StepList = append(nv.StepList, stepRow{From: m.Start.In(loc).Format("15:04:05"), To: end.In(loc).Format("15:04:05"),
				Role: string(row.Role), Worker: row.Worker, Task: m.Task, Title: m.Title, Outcome: m.Outcome, Detail: clip(m.Detail, 400), Start: m.Start.UnixNano()})
		}
	}
	slices.SortStableFunc(nv.StepList, func(a, b stepRow) int { return cmp.Compare(a.Start, b.Start) })
	nv.Ceilings = ceilingsText(n)
	if len(n.FailsByCheck) > 0 {
		var checks []string
		for c, k := range n.FailsByCheck {
			checks = append(checks, fmt.Sprintf("%s %d", c, k))
		}
		slices.Sort(checks)
		nv.Checks = strings.Join(checks, ", ")
	}
	return nv
}
