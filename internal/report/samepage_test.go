package report_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/internal/report"
)

// samePage fails t unless r's page is byte for byte the one the
// template testdata/page.gohtml writes (report.TemplateHTML).
func samePage(t testing.TB, r *report.Report) {
	t.Helper()
	var got, want bytes.Buffer
	if err := r.HTML(&got); err != nil {
		t.Fatal(err)
	}
	if err := report.TemplateHTML(r, &want); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got.Bytes(), want.Bytes()) {
		return
	}
	g, w := got.String(), want.String()
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	from := max(0, i-200)
	t.Fatalf("the page (%d bytes) is not the template's (%d bytes); from byte %d:\n got: %q\nwant: %q", len(g), len(w), i,
		g[from:min(len(g), i+200)], w[from:min(len(w), i+200)])
}

// hostile puts into every text of r that the page writes the characters
// an escaper must mind, a NUL and bytes that are not UTF-8.
func hostile(r *report.Report) {
	const bad = "<b>&'\"+\x00\xff\xfe é </title></script>"
	for i := range r.Nights {
		n := &r.Nights[i]
		n.Name += bad
		n.Reason += bad
		for j := range n.Failures {
			n.Failures[j].Reason += bad
			n.Failures[j].Rule += bad
			n.Failures[j].Worker += bad
		}
		for j := range n.Notes {
			n.Notes[j].Text += bad
		}
		for j := range n.Timeline.Rows {
			n.Timeline.Rows[j].Worker += bad
			for k := range n.Timeline.Rows[j].Marks {
				n.Timeline.Rows[j].Marks[k].Title += bad
				n.Timeline.Rows[j].Marks[k].Detail += bad
			}
		}
	}
	for i := range r.Trend {
		r.Trend[i].Night += bad
	}
	r.Covers += bad
	for i := range r.Needs.Items {
		it := &r.Needs.Items[i]
		it.What += bad
		it.Title += strings.Repeat("長", 200) + bad
		it.Do += bad
		it.When += bad
		for j := range it.Commands {
			it.Commands[j] += bad
		}
	}
	for i := range r.Needs.Parked {
		r.Needs.Parked[i].Title += bad
		r.Needs.Parked[i].Action += bad
		r.Needs.Parked[i].Then += bad
	}
}

// TestThePageIsTheTemplatesPage holds page.go, the page written by hand,
// to the template it was translated from, on the month's ledger (every
// kind of night, item and chart), with and without hostile text; the
// other tests that write a page check theirs too (samePage).
func TestThePageIsTheTemplatesPage(t *testing.T) {
	m := theMonthLedger(t)
	for _, cfg := range []report.Config{{DB: "month.db"}, {Nights: 1}, {Nights: 3}} {
		r, err := report.Build(context.Background(), m.l, m.now, cfg)
		if err != nil {
			t.Fatal(err)
		}
		samePage(t, r)
		hostile(r)
		samePage(t, r)
	}
	samePage(t, &report.Report{})
}
