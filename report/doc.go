// Package report tells the person reading it in the morning what the
// nights did, from the ledger alone: per night, the window, when and how
// it ended, the steps each role finished, the tasks done, failed, skipped
// and parked, the failures by scope with their reasons and the FAILs by
// the check that decided them, and the system stops it was resumed after;
// across nights, the two numbers seed 003 says would settle whether the
// policy works: builder steps finished per night, and nights that ended
// before the clock ran out, kept apart as nights cut short by failure
// handling (a system stop, every worker of a role out, a night-scope
// failure) and nights that ran out of work (nothing takeable), with their
// sum. A spent token budget is the ceilings reached, neither. Parked tasks
// past their deadline are listed first, then approved tasks that have not
// run yet, with how long they have waited.
//
//	r, err := report.Build(ctx, l, time.Now())
//	r.Text(os.Stdout)          // or r.JSON(w), r.HTML(w) with SVG charts
package report
