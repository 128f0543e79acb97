package report

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/gate"
)

// items orders what needs a person by urgency, from the lists: system
// stops first (the night waits, stopped, for a person), then what
// expires first (the parked actions an answer still counts for, by
// deadline: past their deadline, the next night settles them), then the
// silent failures (work that does not happen, and says nothing), the
// nights cut short, the tasks failed on every model and the unverified
// results. now says how long ago or until, in words, and loc the zone
// of the times written.
func (n Needs) items(now time.Time, loc *time.Location) []Item {
	at := func(t time.Time) string { return stamp(t, loc) }
	out := []Item{}
	for i, s := range n.Stops {
		it := Item{Kind: KindStop, List: "system_stops", Index: i, Night: s.Night, Do: s.Do, Commands: s.Commands,
			What: stopWhat(s), Deadline: s.WindowEnd}
		if now.Before(s.WindowEnd) {
			it.When = fmt.Sprintf("stopped %s (%s); its window closes %s (%s)", at(s.At), ago(s.At, now), at(s.WindowEnd), left(s.WindowEnd, now))
		} else {
			it.When = fmt.Sprintf("stopped %s (%s); its window closed %s", at(s.At), ago(s.At, now), at(s.WindowEnd))
		}
		out = append(out, it)
	}
	var parked []Item
	for i, p := range n.Parked {
		if !p.counted() {
			continue
		}
		it := Item{Kind: KindParked, List: "parked", Index: i, Task: p.Task, Title: p.Title, Deadline: p.Deadline, Commands: []string{p.Approve, p.Deny},
			What: fmt.Sprintf("task %d %q asks to run %s", p.Task, clipTitle(p.Title), gate.Escape(p.Action)),
			When: fmt.Sprintf("parked %s (%s); deadline %s (%s)", at(p.AskedAt), ago(p.AskedAt, now), at(p.Deadline), left(p.Deadline, now))}
		it.Do = "approve it (it runs first in the next night) or deny it (the task fails) before its deadline"
		if p.Status == PastDeadline {
			it.Do = "its deadline passed, but an answer still counts until the next night settles it: approve or deny it now"
		}
		if p.Reason != "" {
			it.What += " (" + p.Reason + ")"
		}
		parked = append(parked, it)
	}
	sort.SliceStable(parked, func(i, j int) bool { return parked[i].Deadline.Before(parked[j].Deadline) })
	out = append(out, parked...)
	for i, s := range n.Silent {
		out = append(out, Item{Kind: KindSilent, List: "silent_failures", Index: i, Night: s.Nights[len(s.Nights)-1],
			What: silentWhat(s), When: nightsText(s.Nights), Do: s.Do, Commands: s.Commands})
	}
	for i, c := range n.CutShort {
		what := fmt.Sprintf("night %s ended %s: %s", c.Night, c.End, c.Reason)
		if c.Resumed {
			what += " (then resumed)"
		}
		out = append(out, Item{Kind: KindCutShort, List: "cut_short", Index: i, Night: c.Night, What: what,
			When: fmt.Sprintf("at %s (%s)", at(c.At), ago(c.At, now)), Commands: []string{},
			Do: "failure handling stopped work that was there: its account says why; fix the cause before the next night"})
	}
	for i, e := range n.FailedEveryModel {
		what := fmt.Sprintf("task %d %q failed on every %s model (%s): %d failed %s", e.Task, clipTitle(e.Title), e.Role,
			strings.Join(e.Models, ", "), e.Attempts, plural(e.Attempts, "attempt"))
		if e.ByHand > 0 {
			what += fmt.Sprintf(" and %d by hand", e.ByHand)
		}
		if e.Of > 0 {
			what += fmt.Sprintf(", %d of the %d builder steps of these nights", e.Steps, e.Of)
		}
		out = append(out, Item{Kind: KindExhausted, List: "failed_on_every_model", Index: i, Task: e.Task, Title: e.Title,
			What: what + "; the last: " + e.Last, Commands: []string{e.Drop},
			Do: "no model is left to hand it to, and each night it takes steps again: give it up, or rewrite or split it (nightshift task add) and give this one up"})
	}
	for i, u := range n.Unverified {
		what := fmt.Sprintf("task %d %q: night %s, %s", u.Task, clipTitle(u.Title), u.Night, u.Worker)
		if len(u.Checks) > 0 {
			what += ", failed " + strings.Join(u.Checks, ", ")
		}
		if u.Reason != "" {
			what += ": " + u.Reason
		}
		out = append(out, Item{Kind: KindUnverified, List: "unverified", Index: i, Night: u.Night, Task: u.Task, Title: u.Title, What: what,
			When: fmt.Sprintf("at %s (%s)", at(u.At), ago(u.At, now)), Commands: []string{u.Show},
			Do: "no check passed it: look at its latest attempt, the verdict and the diff of its changes; give it up (nightshift task drop) or leave it for the next night"})
	}
	return out
}

// stopWhat says what stopped a night, and whose key a provider refused.
func stopWhat(s Stop) string {
	what := fmt.Sprintf("night %s stopped: %s", s.Night, s.Reason)
	if s.Rule != "" {
		what = fmt.Sprintf("night %s stopped by a system-scope failure (%s): %s", s.Night, s.Rule, s.Cause)
	}
	if s.Worker == "" {
		return what
	}
	who := fmt.Sprintf("%s/%s", s.Role, s.Worker)
	if s.Provider != "" {
		who += fmt.Sprintf(" (%s", s.Provider)
		if s.Model != "" {
			who += " " + s.Model
		}
		who += ")"
	}
	if s.Rule == "auth" && s.KeyEnv != "" {
		return what + fmt.Sprintf("; the key refused is %s's, read from %s", who, s.KeyEnv)
	}
	if s.KeyEnv != "" {
		return what + fmt.Sprintf("; the worker: %s, its key read from %s", who, s.KeyEnv)
	}
	return what + "; the worker: " + who
}

// silentWhat says what a silent failure is, with its counts.
func silentWhat(s SilentRun) string {
	who := string(s.Role)
	if len(s.Workers) > 0 {
		who += " (" + strings.Join(s.Workers, ", ") + ")"
	}
	nights := count(len(s.Nights), "night")
	if s.Kind == FinishedNothing {
		what := fmt.Sprintf("%s finished nothing on %s while tasks waited that it never took: %d on the last", who, nights, s.Waiting)
		if s.Unscored == s.Waiting && s.Unscored > 0 {
			what += ", none of them scored"
		} else if s.Unscored > 0 {
			what += fmt.Sprintf(", %d not scored", s.Unscored)
		}
		what += fmt.Sprintf("; %d %s taken", s.Calls, plural(s.Calls, "attempt"))
		if s.Calls > 0 {
			what += fmt.Sprintf(", %d failed", s.Failed)
		}
		return what + lastText(s.Last)
	}
	return fmt.Sprintf("%s: no successful call on %s: %d %s, %d failed (%d empty)", who, nights, s.Calls, plural(s.Calls, "call"), s.Failed, s.Empty) + lastText(s.Last)
}

func lastText(last string) string {
	if last == "" {
		return ""
	}
	return "; the last: " + clip(last, 300)
}

// nightsText names nights: one, a few, or the first and the last.
func nightsText(ns []string) string {
	switch {
	case len(ns) == 1:
		return "night " + ns[0]
	case len(ns) <= 4:
		return "nights " + strings.Join(ns, ", ")
	}
	return fmt.Sprintf("nights %s to %s (%d)", ns[0], ns[len(ns)-1], len(ns))
}
