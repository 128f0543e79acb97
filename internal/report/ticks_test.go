package report

import (
	"slices"
	"testing"
	"time"
)

// TestTheAxisLabelsTheHoursTheZonesClocksShow (issue 30): a timeline's
// labels are the whole hours the window's zone shows, on the nights its
// clocks change too: 02:00 twice as they go back, none as they go
// forward (02:00 to 03:00 is skipped), and on the hour in a zone half an
// hour off UTC.
func TestTheAxisLabelsTheHoursTheZonesClocksShow(t *testing.T) {
	for _, tt := range []struct {
		zone, night string
		want        []string
	}{
		{"Europe/Berlin", "2025-10-25", []string{"22:00", "23:00", "00:00", "01:00", "02:00", "02:00", "03:00", "04:00", "05:00", "06:00"}},
		{"Europe/Berlin", "2025-03-29", []string{"22:00", "23:00", "00:00", "01:00", "03:00", "04:00", "05:00", "06:00"}},
		{"America/New_York", "2025-11-01", []string{"22:00", "23:00", "00:00", "01:00", "01:00", "02:00", "03:00", "04:00", "05:00", "06:00"}},
		{"America/New_York", "2025-03-08", []string{"22:00", "23:00", "00:00", "01:00", "03:00", "04:00", "05:00", "06:00"}},
		{"Asia/Kolkata", "2025-10-25", []string{"22:00", "23:00", "00:00", "01:00", "02:00", "03:00", "04:00", "05:00", "06:00"}},
	} {
		t.Run(tt.zone+" "+tt.night, func(t *testing.T) {
			loc, err := time.LoadLocation(tt.zone)
			if err != nil {
				t.Skipf("no zone data: %v", err)
			}
			day, _ := time.ParseInLocation("2006-01-02", tt.night, loc)
			from := time.Date(day.Year(), day.Month(), day.Day(), 22, 0, 0, 0, loc)
			to := time.Date(day.Year(), day.Month(), day.Day()+1, 6, 0, 0, 0, loc)
			var got []string
			for _, tk := range hourTicks(from, to, loc, func(time.Time) float64 { return 0 }) {
				got = append(got, tk.Label)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("labels %v, want %v", got, tt.want)
			}
		})
	}
}
