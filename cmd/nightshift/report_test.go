package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReportCoversTheNightsAskedFor: the report covers the last 14 nights,
// --nights N the last N, --since a date or a span back from now; both at
// once, a bad span or no night at all are usage errors.
func TestReportCoversTheNightsAskedFor(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "month.db")
	writeFiles(t, dir, map[string]string{
		"pipeline.yaml": "window: {start: \"22:00\", end: \"06:00\"}\nmodels: {maker: {provider: scripted, scenario: maker.yaml}}\nroles: {builder: {models: [maker]}}\n",
		"maker.yaml":    "loop: true\nturns:\n  - text: Made it.\n",
	})
	// Twenty nights from 1 October; the report is made at noon after the
	// last.
	now := time.Date(2025, 10, 21, 12, 0, 0, 0, time.UTC)
	defer func(was func() time.Time) { reportNow = was }(reportNow)
	reportNow = func() time.Time { return now }
	if _, stderr, err := execute(t, newNightCmd(), "--pipeline", filepath.Join(dir, "pipeline.yaml"), "--db", db, "--clock", "sim",
		"--nights", "20", "--from", "2025-10-01", "--html", filepath.Join(dir, "month.html")); err != nil {
		t.Fatalf("night: %v\n%s", err, stderr)
	} else if !strings.Contains(stderr, "[night · the morning report: "+filepath.Join(dir, "month.html")+"]") {
		t.Errorf("night --html does not say where the page is:\n%s", stderr)
	}
	if page, err := os.ReadFile(filepath.Join(dir, "month.html")); err != nil || !strings.Contains(string(page), `<figure id="trend-steps" data-nights="20">`) {
		t.Errorf("night --html's page (%v) does not chart the 20 nights it ran", err)
	}
	covered := func(args ...string) int {
		t.Helper()
		out, _, err := execute(t, newReportCmd(), append([]string{"--db", db, "--json"}, args...)...)
		if err != nil {
			t.Fatalf("report %v: %v", args, err)
		}
		var r struct {
			Nights []json.RawMessage `json:"nights"`
			Trend  []json.RawMessage `json:"trend"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Nights) != len(r.Trend) {
			t.Errorf("report %v: %d nights, %d trend points", args, len(r.Nights), len(r.Trend))
		}
		return len(r.Nights)
	}
	for _, tt := range []struct {
		args []string
		want int
	}{
		{nil, 14},
		{[]string{"--nights", "5"}, 5},
		{[]string{"--nights", "30"}, 20},
		{[]string{"--since", "30d"}, 20},
		{[]string{"--since", "1w"}, 7},
		{[]string{"--since", "84h"}, 3},
		{[]string{"--since", "2025-10-11"}, sinceDate(time.Date(2025, 10, 11, 0, 0, 0, 0, time.Local))},
	} {
		if got := covered(tt.args...); got != tt.want {
			t.Errorf("report %v covers %d nights, want %d", tt.args, got, tt.want)
		}
	}
	for _, args := range [][]string{{"--nights", "3", "--since", "2w"}, {"--since", "soon"}, {"--nights", "0"},
		{"--since", "2099-01-01"}, {"--since", "999999999d"}} {
		if _, _, err := execute(t, newReportCmd(), append([]string{"--db", db}, args...)...); exitOf(err) != 2 {
			t.Errorf("report %v: exit %d (%v), want 2", args, exitOf(err), err)
		}
	}
}

// sinceDate counts the nights of the test's month (windows opening at 22:00
// UTC from 1 to 20 October) that opened at or after since.
func sinceDate(since time.Time) int {
	n := 0
	for d := 1; d <= 20; d++ {
		if !time.Date(2025, 10, d, 22, 0, 0, 0, time.UTC).Before(since) {
			n++
		}
	}
	return n
}
