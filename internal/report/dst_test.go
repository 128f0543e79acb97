package report_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/internal/report"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/night"
)

// TestTheWindowAcrossDaylightSavingChanges (issue 30): nights run in a
// zone across both of its clock changes read, in the report, as their
// windows were set: 22:00 to 06:00 every night, the night the clocks
// change 7 or 9 hours long and saying so, each timeline's axis across
// the night's real length; in Europe/Berlin and America/New_York.
func TestTheWindowAcrossDaylightSavingChanges(t *testing.T) {
	for _, tt := range []struct {
		zone, first string
		hours       []int // of the three nights from first
	}{
		{"Europe/Berlin", "2025-10-24", []int{8, 9, 8}},
		{"Europe/Berlin", "2025-03-28", []int{8, 7, 8}},
		{"America/New_York", "2025-10-31", []int{8, 9, 8}},
		{"America/New_York", "2025-03-07", []int{8, 7, 8}},
	} {
		t.Run(tt.zone+" from "+tt.first, func(t *testing.T) {
			loc, err := time.LoadLocation(tt.zone)
			if err != nil {
				t.Skipf("no zone data: %v", err)
			}
			ctx := context.Background()
			p, err := night.ParsePipeline([]byte(fmt.Sprintf(`
window: {start: "22:00", end: "06:00", zone: %s}
models:
  b: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b], ceiling: 20}
`, tt.zone)))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			p.WorkDir = filepath.Join(dir, "work")
			l, err := ledger.Open(ctx, filepath.Join(dir, "dst.db"), ledger.Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close(ctx) //nolint:errcheck // test cleanup
			day, _ := time.ParseInLocation("2006-01-02", tt.first, loc)
			clk := clock.NewFake(p.Window.StartOn(day))
			// Each attempt takes an hour: every night runs to its window's
			// end, so that its length shows.
			b := night.BuilderFunc(func(context.Context, night.Assignment) night.Attempt {
				clk.Advance(time.Hour)
				return night.Attempt{Outcome: agent.Done, Answer: "made it", Tokens: 10}
			})
			for i := range 40 {
				s := float64(i)
				if _, err := l.AddTask(ctx, ledger.NewTask{Title: fmt.Sprintf("task %d", i), Score: &s}, clk.Now()); err != nil {
					t.Fatal(err)
				}
			}
			for range tt.hours {
				sum, err := night.Run(ctx, night.Config{Pipeline: p, Ledger: l, Builder: b, Clock: clk})
				if err != nil {
					t.Fatal(err)
				}
				if now := clk.Now(); now.Before(sum.Night.WindowEnd) {
					clk.Advance(sum.Night.WindowEnd.Sub(now))
				}
			}
			r, err := report.Build(ctx, l, clk.Now(), report.Config{})
			if err != nil {
				t.Fatal(err)
			}
			var text bytes.Buffer
			if err := r.Text(&text); err != nil {
				t.Fatal(err)
			}
			if len(r.Nights) != len(tt.hours) {
				t.Fatalf("%d nights, want %d", len(r.Nights), len(tt.hours))
			}
			for i, n := range r.Nights {
				want := fmt.Sprintf("Night %s  window %s 22:00–06:00\n", day.AddDate(0, 0, i).Format("2006-01-02"), day.AddDate(0, 0, i).Format("2006-01-02"))
				if tt.hours[i] != 8 {
					want = strings.TrimSuffix(want, "\n") + fmt.Sprintf(" (%d hours: the clocks change)\n", tt.hours[i])
				}
				if !strings.Contains(text.String(), want) {
					t.Errorf("the text lacks %q:\n%s", want, text.String())
				}
				if got := n.WindowEnd.Sub(n.WindowStart); got != time.Duration(tt.hours[i])*time.Hour {
					t.Errorf("night %s's window lasts %s, want %dh", n.Name, got, tt.hours[i])
				}
				if got := n.Timeline.To.Sub(n.Timeline.From); got < time.Duration(tt.hours[i])*time.Hour {
					t.Errorf("night %s's axis spans %s; want the night's %dh", n.Name, got, tt.hours[i])
				}
			}
		})
	}
}
