package report

import (
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/ledger"
)

//go:embed page.gohtml
var pageSource string

// page is the parsed page.gohtml, parsed when a report is first written:
// parsing it cost every start of nightshift (a run, --help) 250 KB and
// 5,000 allocations.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"f":       func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) },
		"stamp":   stamp,
		"hm":      func(t time.Time, loc *time.Location) string { return t.In(loc).Format("15:04") },
		"escape":  gate.Escape,
		"dur":     func(d time.Duration) string { return roundDur(d).String() },
		"plural":  plural,
		"join":    strings.Join,
		"sub":     func(a, b int) int { return a - b },
		"add":     func(a, b int) int { return a + b },
		"out":     func(m map[Outcome]int, o string) int { return m[Outcome(o)] },
		"role":    func(m map[ledger.Role]int, r string) int { return m[ledger.Role(r)] },
		"scopes":  scopesText,
		"cost":    shortCost,
		"kind":    func(k string) string { return kindText[k] },
		"clipped": func(s string) bool { return len([]rune(s)) > TitleRunes },
		"clip":    clipTitle,
		"runes":   func(s string) int { return len([]rune(s)) },
		"human":   Human,
		"silent":  silentNightText,
	}).Parse(pageSource))
})

// HTML writes the report as one page that stands on its own: what needs a
// person first, the last night's timeline, the trend charts across nights
// and every night's account, with inline SVG and CSS only (no request
// leaves the page), readable in dark mode and in print.
func (r *Report) HTML(w io.Writer) error {
	return page().Execute(w, r.view())
}

// pageView is what page.gohtml writes.
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
