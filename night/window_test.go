package night_test

import (
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/night"
)

// TestTheWindowIsComputedInItsZoneAcrossDaylightSavingChanges is a
// regression test (issue 30): the window's ends were midnight plus a
// fixed duration, so on the day the clocks go back a window of 22:00 to
// 06:00 read 22:00–05:00, and the next night 21:00–05:00. Each end is now
// the time of day on the zone's own clock: the window opens at 22:00 and
// closes at 06:00 on every night, and the night the clocks change lasts
// 7 or 9 hours. Both transitions, in Europe/Berlin and America/New_York.
func TestTheWindowIsComputedInItsZoneAcrossDaylightSavingChanges(t *testing.T) {
	for _, tt := range []struct {
		zone string
		// night is the date the window opens on; hours is how long it
		// lasts, by the clock on the wall of a room in the zone.
		night string
		hours time.Duration
	}{
		{"Europe/Berlin", "2025-10-24", 8},
		{"Europe/Berlin", "2025-10-25", 9}, // 03:00 CEST becomes 02:00 CET on the 26th
		{"Europe/Berlin", "2025-10-26", 8},
		{"Europe/Berlin", "2025-03-29", 7}, // 02:00 CET becomes 03:00 CEST on the 30th
		{"Europe/Berlin", "2025-03-30", 8},
		{"America/New_York", "2025-03-08", 7}, // 02:00 EST becomes 03:00 EDT on the 9th
		{"America/New_York", "2025-03-09", 8},
		{"America/New_York", "2025-11-01", 9}, // 02:00 EDT becomes 01:00 EST on the 2nd
		{"America/New_York", "2025-11-02", 8},
	} {
		t.Run(tt.zone+" "+tt.night, func(t *testing.T) {
			loc, err := time.LoadLocation(tt.zone)
			if err != nil {
				t.Skipf("no zone data for %s: %v", tt.zone, err)
			}
			w := night.Window{Start: "22:00", End: "06:00", Zone: tt.zone}
			day, _ := time.ParseInLocation("2006-01-02", tt.night, loc)
			wantStart := time.Date(day.Year(), day.Month(), day.Day(), 22, 0, 0, 0, loc)
			wantEnd := time.Date(day.Year(), day.Month(), day.Day()+1, 6, 0, 0, 0, loc)
			if got := wantEnd.Sub(wantStart); got != tt.hours*time.Hour {
				t.Fatalf("the test's own night lasts %s, want %dh: check the dates", got, tt.hours)
			}
			// Asked before the window opens (that evening), inside it
			// on either side of midnight and of the change, and a
			// minute before it closes: always the same window.
			for _, now := range []time.Time{
				time.Date(day.Year(), day.Month(), day.Day(), 12, 0, 0, 0, loc),
				wantStart,
				wantStart.Add(90 * time.Minute),
				wantStart.Add(4 * time.Hour),
				wantStart.Add(6 * time.Hour),
				wantEnd.Add(-time.Minute),
			} {
				s, e := w.Bounds(now)
				if !s.Equal(wantStart) || !e.Equal(wantEnd) {
					t.Errorf("Bounds(%s) = %s – %s; want %s – %s", now.Format(time.RFC3339), wall(s, loc), wall(e, loc), wall(wantStart, loc), wall(wantEnd, loc))
				}
			}
			if s := w.StartOn(day); !s.Equal(wantStart) {
				t.Errorf("StartOn(%s) = %s; want %s", tt.night, wall(s, loc), wall(wantStart, loc))
			}
			// At the window's end comes the next night's window.
			s, e := w.Bounds(wantEnd)
			if want := time.Date(day.Year(), day.Month(), day.Day()+1, 22, 0, 0, 0, loc); !s.Equal(want) || e.In(loc).Hour() != 6 {
				t.Errorf("Bounds at the end = %s – %s; want the next night's, from %s to 06:00", wall(s, loc), wall(e, loc), wall(want, loc))
			}
		})
	}
	t.Run("a daytime window on the day the clocks go back keeps its times of day", func(t *testing.T) {
		loc, err := time.LoadLocation("Europe/Berlin")
		if err != nil {
			t.Skip(err)
		}
		w := night.Window{Start: "08:00", End: "18:00", Zone: "Europe/Berlin"}
		s, e := w.Bounds(time.Date(2025, 10, 26, 1, 0, 0, 0, loc))
		if wall(s, loc) != "2025-10-26 08:00 CET" || wall(e, loc) != "2025-10-26 18:00 CET" {
			t.Errorf("window %s – %s; want 08:00 to 18:00 on the 26th", wall(s, loc), wall(e, loc))
		}
	})
}

func wall(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("2006-01-02 15:04 MST")
}
