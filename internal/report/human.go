package report

import (
	"fmt"
	"strings"
	"time"
)

// Human writes a duration for a person: its two largest units, in words,
// rounded ("3 hours 12 minutes", "1 day 22 hours", "45 seconds"), never
// Go's "45h57m0s". A negative duration is written as its size.
func Human(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	type unit struct {
		size time.Duration
		name string
	}
	units := []unit{{24 * time.Hour, "day"}, {time.Hour, "hour"}, {time.Minute, "minute"}, {time.Second, "second"}}
	if d < time.Second {
		return "less than a second"
	}
	for i, u := range units {
		if d < u.size {
			continue
		}
		// Round to the next unit down, then split.
		if i+1 < len(units) {
			next := units[i+1].size
			d = d.Round(next)
			n, rest := d/u.size, (d%u.size)/next
			s := count(int(n), u.name)
			if rest > 0 {
				s += " " + count(int(rest), units[i+1].name)
			}
			return s
		}
		return count(int(d.Round(time.Second)/time.Second), u.name)
	}
	return "less than a second"
}

func count(n int, word string) string { return fmt.Sprintf("%d %s", n, plural(n, word)) }

// ago says how long before now t was: "3 hours 12 minutes ago".
func ago(t, now time.Time) string {
	if !now.After(t) {
		return "just now"
	}
	return Human(now.Sub(t)) + " ago"
}

// left says how long until a deadline, or how long since it passed:
// "in 3 hours 12 minutes", "passed 2 hours ago".
func left(deadline, now time.Time) string {
	if deadline.After(now) {
		return "in " + Human(deadline.Sub(now))
	}
	return "passed " + ago(deadline, now)
}

// TitleRunes is how much of a task's title the text and the page show
// in a line; the JSON, `nightshift task show` and the page's hover text
// have all of it.
const TitleRunes = 100

// clipTitle clips a title for a line, on one line, ending "…" when it
// was clipped.
func clipTitle(s string) string { return clip(s, TitleRunes) }

// clip shortens s to at most n runes, on one line, ending "…" when it
// cut something.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
